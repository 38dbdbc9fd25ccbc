// The diff page in headless chromium: a copy of the example with one section edited, compared
// with its snapshots. The page loads with no error and no request, runs no script, shows the
// deltas `diff --format json` computes, and marks each changed line.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { spawnSync } = require("node:child_process");
const { launch, open, screenshot, pages } = require("./browser.js");

const repo = path.join(__dirname, "..", "..");
const bin = path.resolve(process.env.PROMPTC_BIN || path.join(repo, "target", "debug", "promptc"));

// A repository-like copy of profiles/ and snapshots/ (the example's snapshots sit beside it).
const work = fs.mkdtempSync(path.join(os.tmpdir(), "promptc-diff-page-"));
fs.mkdirSync(path.join(work, ".git"));
fs.cpSync(path.join(repo, "profiles"), path.join(work, "profiles"), { recursive: true });
fs.cpSync(path.join(repo, "snapshots"), path.join(work, "snapshots"), { recursive: true });
const rules = path.join(work, "profiles", "sections", "rules.md.j2");
fs.writeFileSync(rules, fs.readFileSync(rules, "utf8").replace("\n", "\nAlways run the tests before you finish.\n"));

function diff(args) {
  const r = spawnSync(bin, ["diff", ...args], { cwd: work, encoding: "utf8", maxBuffer: 1 << 28 });
  assert.equal(r.status, 1, `drift exits 1: ${r.stderr}`);
  return r.stdout;
}
fs.mkdirSync(pages, { recursive: true });
const page = path.join(pages, "diff.html");
diff(["--format", "html", "--out", page]);
const json = JSON.parse(diff(["--format", "json"]));

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser.close(); fs.rmSync(work, { recursive: true, force: true }); });

test("the diff page shows the JSON's deltas and each changed line", async () => {
  const o = await open(browser, page, { ready: false });
  const p = o.page;
  assert.match(await p.textContent("#verdict"), new RegExp(`Drift: ${json.files.length} files differ`));
  assert.equal(await p.evaluate(() => document.scripts.length), 0, "a static page");
  for (const d of json.deltas) {
    const row = p.locator(`table.deltas[data-cell="${d.cell}"] tr[data-item="${d.item}"]`);
    const cells = await row.locator("td").allTextContents();
    const tokens = (d.after?.tokens ?? 0) - (d.before?.tokens ?? 0);
    const bytes = (d.after?.bytes ?? 0) - (d.before?.bytes ?? 0);
    assert.equal(Number(await row.locator("td.d >> nth=0").getAttribute("data-delta")), tokens, `${d.cell} ${d.item}`);
    assert.equal(Number(await row.locator("td.d >> nth=1").getAttribute("data-delta")), bytes, `${d.cell} ${d.item}`);
    assert.equal(cells[0].replace(/,/g, ""), d.before ? String(d.before.tokens ?? "?") : "—");
  }
  const files = await p.$$eval("#files details", (d) => d.map((x) => x.dataset.file));
  assert.deepEqual(files, json.files.map((f) => f.file));
  const added = await p.$$eval("#files .l-add", (s) => s.map((x) => x.textContent));
  assert.ok(added.includes("+Always run the tests before you finish."));
  // Collapsing a file works from the keyboard.
  await p.focus("#files details >> nth=0 >> summary");
  const before = await p.getAttribute("#files details >> nth=0", "open");
  assert.equal(before === null, json.files.length > 10, "few files start unfolded, many folded");
  await p.keyboard.press("Enter");
  assert.equal((await p.getAttribute("#files details >> nth=0", "open")) === null, before !== null);
  await screenshot(p, "diff", "main");
  assert.deepEqual(o.seen.errors, []);
  assert.deepEqual(o.seen.console, []);
  assert.deepEqual(o.seen.requests, [o.url]);
  await o.context.close();
});
