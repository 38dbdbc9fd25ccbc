// The README's screenshots of the example's pages, written to docs/images:
//
//   scripts/browser-test.sh screenshots
//
// Pages come from PROMPTC_BIN on the shipped example (and, for the diff page, a copy of it
// with one rule added). Pictures depend on the machine's fonts: they illustrate, tests assert.
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFileSync, spawnSync } = require("node:child_process");
const { launch, open } = require("./browser.js");

const repo = path.join(__dirname, "..", "..");
const bin = path.resolve(process.env.PROMPTC_BIN || path.join(repo, "target", "debug", "promptc"));
const out = path.join(repo, "docs", "images");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "promptc-shots-"));

// A picture of the page from the top of `from` to the bottom of `to` (page coordinates).
async function clip(page, file, from, to, pad = 8) {
  const box = (sel) => page.locator(sel).evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top + window.scrollY, bottom: r.bottom + window.scrollY };
  });
  const a = await box(from);
  const b = await box(to || from);
  const y = Math.max(0, a.top - pad);
  const clip = { x: 0, y, width: page.viewportSize().width, height: b.bottom - y + pad };
  await page.screenshot({ path: path.join(out, file), clip, fullPage: true });
  console.log("wrote docs/images/" + file);
}

async function main() {
  fs.mkdirSync(out, { recursive: true });
  const report = path.join(tmp, "report.html");
  execFileSync(bin, ["report", "--matrix", "--format", "html", "--out", report], { cwd: path.join(repo, "profiles"), stdio: "ignore" });
  const work = path.join(tmp, "work");
  fs.mkdirSync(path.join(work, ".git"), { recursive: true });
  fs.cpSync(path.join(repo, "profiles"), path.join(work, "profiles"), { recursive: true });
  fs.cpSync(path.join(repo, "snapshots"), path.join(work, "snapshots"), { recursive: true });
  const rules = path.join(work, "profiles", "sections", "rules.md.j2");
  fs.writeFileSync(rules, fs.readFileSync(rules, "utf8").replace("\n", "\nAlways run the tests before you finish.\n"));
  const diff = path.join(tmp, "diff.html");
  spawnSync(bin, ["diff", "--format", "html", "--out", diff], { cwd: work, stdio: "ignore" });

  const browser = await launch();
  const viewport = { width: 1440, height: 900 };
  let o = await open(browser, report, { viewport });
  await clip(o.page, "report-overview.png", ".top", '#matrix tbody tr:nth-child(12)');
  await o.page.hover('#treemap .node[data-id="section:rules"]');
  await clip(o.page, "report-cell.png", "#cell-title", ".treemap-wrap");
  await o.page.click('#treemap .node[data-id="tools"]');
  await o.page.hover('#treemap .node[data-id="tool:execute_command"]');
  await clip(o.page, "report-tools.png", ".treemap-bar", ".treemap-wrap");
  await clip(o.page, "report-compare.png", "#compare-title", '#compare-table tbody tr:nth-child(16)');
  await o.context.close();
  o = await open(browser, report, { viewport, colorScheme: "dark", hash: "#cell=lite.xml" });
  await o.page.hover('#treemap .node[data-id="section:tool_docs"]');
  await clip(o.page, "report-dark.png", "#cell-title", ".treemap-wrap");
  await o.context.close();
  o = await open(browser, diff, { viewport, ready: false });
  await clip(o.page, "diff.png", ".top", 'table.deltas >> nth=1');
  await o.context.close();
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch((e) => { console.error(e); process.exit(1); });
