// Shared set-up of the browser tests: Debian's chromium driven by playwright-core, started
// the way this project's machines need (no sandbox as root, no background networking), and a
// page opened from a file with every request, console message and page error recorded.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { chromium } = require("playwright-core");

const executablePath = process.env.PROMPTC_CHROMIUM || "/usr/bin/chromium";
const artifacts = process.env.PROMPTC_BROWSER_ARTIFACTS || path.join(__dirname, "..", "..", "target", "browser-artifacts");
const pages = process.env.PROMPTC_PAGES || path.join(artifacts, "pages");

async function launch() {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
    ],
  });
}

// Open `file` (a path) in a fresh page of `browser`; returns the page and what it did.
async function open(browser, file, options = {}) {
  const context = await browser.newContext({
    viewport: options.viewport || { width: 1400, height: 1000 },
    colorScheme: options.colorScheme || "light",
  });
  const page = await context.newPage();
  const seen = { requests: [], errors: [], console: [] };
  page.on("request", (r) => seen.requests.push(r.url()));
  page.on("pageerror", (e) => seen.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") seen.console.push(m.text()); });
  const url = "file://" + path.resolve(file) + (options.hash || "");
  await page.goto(url);
  if (options.ready !== false) await page.waitForFunction(() => document.documentElement.dataset.ready === "true");
  return { page, context, seen, url };
}

// A picture of `selector` (default: the viewport) as target/browser-artifacts/NAME.png.
async function screenshot(page, name, selector) {
  fs.mkdirSync(artifacts, { recursive: true });
  const file = path.join(artifacts, name + ".png");
  if (selector) await page.locator(selector).screenshot({ path: file });
  else await page.screenshot({ path: file });
  return file;
}

module.exports = { launch, open, screenshot, pages, artifacts };
