// The report page in headless chromium: it loads with no console error and no request, its
// treemap areas are proportional to tokens (measured on the elements), selecting a cell or an
// item shows its figures, the comparison shows the right deltas, and it reads in light, dark
// and print. A screenshot of each view goes to target/browser-artifacts.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const zlib = require("node:zlib");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { launch, open, screenshot, pages, artifacts } = require("./browser.js");

const repo = path.join(__dirname, "..", "..");
const bin = path.resolve(process.env.PROMPTC_BIN || path.join(repo, "target", "debug", "promptc"));
const example = path.join(repo, "profiles");

function promptc(cwd, args) {
  return execFileSync(bin, args, { cwd, encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] });
}

fs.mkdirSync(pages, { recursive: true });
const matrixPage = path.join(pages, "report-matrix.html");
promptc(example, ["report", "--matrix", "--no-cache", "--format", "html", "--out", matrixPage]);
const json = JSON.parse(promptc(example, ["report", "--matrix", "--no-cache", "--format", "json"]));
const accounts = json.accounts;
const byName = new Map(accounts.map((a) => [a.name, a]));
const messagesPage = path.join(pages, "report-messages.html");
const messagesDir = path.join(repo, "fixtures", "good", "harness-messages");
promptc(messagesDir, ["report", "--matrix", "--no-cache", "--format", "html", "--out", messagesPage]);
const messagesJson = JSON.parse(promptc(messagesDir, ["report", "--matrix", "--no-cache", "--format", "json"]));
const chatPage = path.join(pages, "report-chat.html");
const chatDir = path.join(repo, "fixtures", "good", "chat-templates");
promptc(chatDir, ["report", "--matrix", "--no-cache", "--format", "html", "--out", chatPage]);
const chatJson = JSON.parse(promptc(chatDir, ["report", "--matrix", "--no-cache", "--format", "json"]));
const hostilePage = path.join(pages, "report-hostile.html");
promptc(path.join(repo, "fixtures", "good", "html-hostile"), ["report", "--matrix", "--format", "html", "--out", hostilePage]);

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser.close(); });

// Open a report page (the matrix page by default) and check it did nothing it should not have.
async function load(t, options, file = matrixPage) {
  const o = await open(browser, file, options);
  t.after(async () => {
    assert.deepEqual(o.seen.errors, [], "page errors");
    assert.deepEqual(o.seen.console, [], "console errors or warnings");
    assert.deepEqual(o.seen.requests, [o.url.split("#")[0]], "the page requested only itself");
    await o.context.close();
  });
  return o.page;
}

// Every treemap rectangle's area over the map's, against its tokens over the level's.
async function treemapShares(page) {
  return page.evaluate(() => {
    const map = document.getElementById("treemap");
    const box = map.getBoundingClientRect();
    const inner = { w: map.clientWidth, h: map.clientHeight, left: box.left + map.clientLeft, top: box.top + map.clientTop };
    const total = Number(map.dataset.tokens);
    return [...map.querySelectorAll(".node")].map((n) => {
      const r = n.getBoundingClientRect();
      return {
        id: n.dataset.id, tokens: Number(n.dataset.tokens), area: (r.width * r.height) / (inner.w * inner.h),
        share: Number(n.dataset.tokens) / total,
        inside: r.left >= inner.left - 0.5 && r.top >= inner.top - 0.5 &&
          r.right <= inner.left + inner.w + 0.5 && r.bottom <= inner.top + inner.h + 0.5,
      };
    });
  });
}

function assertProportional(shares, label) {
  assert.ok(shares.length > 0, `${label}: rectangles drawn`);
  let sum = 0;
  for (const s of shares) {
    assert.ok(s.inside, `${label}: ${s.id} lies inside the map`);
    assert.ok(Math.abs(s.area - s.share) < 0.002, `${label}: ${s.id} covers ${s.area.toFixed(4)} of the map for ${s.share.toFixed(4)} of the tokens`);
    sum += s.area;
  }
  assert.ok(Math.abs(sum - 1) < 0.003, `${label}: the rectangles tile the map (${sum})`);
}

test("the page's data is report --format json, and the overview lists every cell", async (t) => {
  const page = await load(t);
  // Decoded here with Node's zlib, not by the page's own code.
  const island = await page.$eval("#promptc-data", (s) => ({ text: s.textContent, encoding: s.dataset.encoding }));
  assert.equal(island.encoding, "deflate-raw;base64");
  const embedded = JSON.parse(zlib.inflateRawSync(Buffer.from(island.text, "base64")).toString("utf8"));
  assert.deepEqual(embedded.report, json);
  const rows = await page.$$eval("#matrix tbody tr", (trs) => trs.map((tr) => ({
    name: tr.dataset.account, sent: tr.querySelector('[data-col="sent"]').textContent,
    billed: tr.querySelector('[data-col="billed"]').textContent, budget: tr.querySelector('[data-col="budget"]').textContent,
  })));
  assert.equal(rows.length, accounts.length);
  for (const [i, r] of rows.entries()) {
    const a = accounts[i];
    assert.equal(r.name, a.name);
    assert.equal(r.sent.replace(/[,≈]/g, ""), String(a.total.tokens));
    assert.equal(r.billed.replace(/[,≈]/g, ""), String(a.billed.total));
    // An estimated bill says so; an exact one (Gemini's, as google-genai counts it) does not.
    assert.equal(r.billed.startsWith("≈"), !a.billed.exact, `${r.name}: ${r.billed}`);
    assert.equal(r.budget, a.budgets.length ? (a.budgets.some((b) => b.exceeded) ? `${a.budgets.filter((b) => b.exceeded).length} over` : "ok") : "—");
  }
  await screenshot(page, "report-overview", "#overview");
});

test("sorting by a column orders the rows and says so", async (t) => {
  const page = await load(t);
  await page.click('#matrix button[data-sort="sent"]');
  const sorted = await page.$$eval("#matrix tbody tr", (trs) => trs.map((tr) => tr.dataset.account));
  const expected = accounts.map((a, i) => [a, i]).sort(([a, i], [b, j]) => b.total.tokens - a.total.tokens || i - j).map(([a]) => a.name);
  assert.deepEqual(sorted, expected);
  assert.equal(await page.getAttribute('#matrix th:has(button[data-sort="sent"])', "aria-sort"), "descending");
  await page.keyboard.press("Enter"); // the heading's button keeps focus: Enter reverses
  const reversed = await page.$$eval("#matrix tbody tr", (trs) => trs.map((tr) => tr.dataset.account));
  assert.deepEqual(reversed[0], expected[expected.length - 1]);
  assert.equal(await page.getAttribute('#matrix th:has(button[data-sort="sent"])', "aria-sort"), "ascending");
});

test("treemap areas are proportional to tokens at every level", async (t) => {
  const page = await load(t);
  const a = accounts[0];
  assertProportional(await treemapShares(page), "top level");
  // The top level is the sections, the text outside them and the tools JSON.
  const ids = (await treemapShares(page)).map((s) => s.id).sort();
  const want = [...a.sections.map((s) => "section:" + s.id), "layout", "tools"].sort();
  assert.deepEqual(ids, want);
  await screenshot(page, "report-treemap", "#cell");
  await page.click('#treemap .node[data-id="tools"]');
  assert.equal(await page.getAttribute("#treemap", "data-level"), "tools");
  const tools = await treemapShares(page);
  assertProportional(tools, "tools");
  for (const tool of a.tools) {
    const s = tools.find((x) => x.id === "tool:" + tool.name);
    assert.ok(s, `tool ${tool.name} drawn`);
    assert.equal(s.tokens, tool.sent.tokens);
  }
  await screenshot(page, "report-treemap-tools", ".treemap-wrap");
  const biggest = [...a.tools].sort((x, y) => y.sent.tokens - x.sent.tokens)[0];
  await page.click(`#treemap .node[data-id="tool:${biggest.name}"]`);
  const params = await treemapShares(page);
  assertProportional(params, biggest.name);
  for (const p of biggest.params) assert.ok(params.some((x) => x.id === `param:${biggest.name}.${p.name}`));
  // The breadcrumb goes back up.
  await page.click("#crumbs button >> nth=0");
  assert.equal(await page.getAttribute("#treemap", "data-level"), "all");
});

test("selecting a cell and an item shows their figures", async (t) => {
  const page = await load(t);
  const a = byName.get("lite.xml");
  await page.click('#matrix tbody tr[data-account="lite.xml"]');
  assert.equal(await page.textContent("#cell-title"), "lite.xml");
  assert.equal(await page.getAttribute('#matrix tr[data-account="lite.xml"]', "aria-selected"), "true");
  assert.match(await page.textContent("#cell-summary"), new RegExp(`${a.total.tokens.toLocaleString("en-US")} tokens`));
  assert.match(page.url(), /#cell=lite\.xml/);
  // xml: no tools JSON; the tools sit inside the section that describes them.
  const top = await treemapShares(page);
  assert.ok(!top.some((s) => s.id === "tools"));
  const docs = a.tools[0].part_of;
  const sec = a.sections.find((s) => s.id === docs);
  await page.hover(`#treemap .node[data-id="section:${docs}"]`);
  const field = (k) => page.textContent(`#details dd[data-field="${k}"]`);
  assert.equal(await page.textContent("#details-title"), docs);
  assert.equal((await field("tokens")).replace(/[,≈]/g, ""), String(sec.sent.tokens));
  assert.equal((await field("bytes")).replace(/,/g, ""), String(sec.sent.bytes));
  assert.equal(await field("share of the cell"), (sec.sent.tokens / a.total.tokens * 100).toFixed(1) + "%");
  assert.equal(await field("source"), sec.source);
  await page.click(`#treemap .node[data-id="section:${docs}"]`);
  const inDocs = await treemapShares(page);
  assertProportional(inDocs, docs);
  assert.equal(inDocs.filter((s) => s.id.startsWith("tool:")).length, a.tools.length);
  const tool = a.tools[0];
  await page.hover(`#treemap .node[data-id="tool:${tool.name}"]`);
  assert.equal(await field("source"), tool.source);
  assert.match(tool.source, /^tools\/[a-z_]+\.yaml:\d+$/);
  await screenshot(page, "report-xml-tool-docs", ".treemap-wrap");
  // The prompt panel shows each section with its source; a dynamic section sits after the cut.
  const segs = await page.$$eval("#panel-prompt section.seg", (s) => s.map((x) => x.dataset.section));
  assert.deepEqual(segs, a.sections.map((s) => s.id));
  const order = await page.$$eval("#panel-prompt > *", (els) => els.map((e) => e.id || e.className));
  const cut = order.indexOf("cache-break");
  const firstDynamic = a.sections.findIndex((s) => s.dynamic);
  assert.ok(cut >= 0 && order.indexOf("seg-" + firstDynamic) > cut, "the cache marker precedes the first dynamic section");
  await screenshot(page, "report-prompt", "#panel-prompt");
});

test("the keyboard reaches every part", async (t) => {
  const page = await load(t);
  await page.focus('#matrix tbody tr[data-account="standard.native.openai"]');
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  assert.equal(await page.textContent("#cell-title"), accounts[1].name);
  await page.focus('#treemap .node[tabindex="0"]');
  const first = await page.evaluate(() => document.activeElement.dataset.id);
  await page.keyboard.press("ArrowRight");
  const second = await page.evaluate(() => document.activeElement.dataset.id);
  assert.notEqual(first, second);
  assert.equal(await page.textContent("#details-title"), await page.evaluate(() => document.activeElement.querySelector(".label").textContent));
  await page.focus('#treemap .node[data-id="tools"]');
  await page.keyboard.press("Enter");
  assert.equal(await page.getAttribute("#treemap", "data-level"), "tools");
  await page.keyboard.press("Escape");
  assert.equal(await page.getAttribute("#treemap", "data-level"), "all");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.id), "tools", "focus returns to the item left");
  await page.focus("#tab-prompt");
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.getAttribute("#tab-tools", "aria-selected"), "true");
  assert.equal(await page.isVisible("#panel-tools"), true);
});

test("the tool JSON tab shows each provider's definitions", async (t) => {
  const page = await load(t, { hash: "#cell=standard.native.anthropic" });
  await page.click("#tab-tools");
  const providers = await page.$$eval("#panel-tools .providers button", (b) => b.map((x) => x.textContent));
  assert.deepEqual(providers, accounts.filter((a) => a.cell === "standard.native").map((a) => a.provider));
  assert.equal(await page.getAttribute('#panel-tools .providers button[aria-pressed="true"]', "data-account"), "standard.native.anthropic");
  const committed = JSON.parse(fs.readFileSync(path.join(repo, "snapshots", "standard.native.anthropic.tools.json"), "utf8"));
  const shown = await page.$$eval("#panel-tools .tool-list pre", (p) => p.map((x) => x.textContent));
  assert.deepEqual(shown.map((s) => JSON.parse(s)), committed);
  await page.click('#panel-tools .providers button[data-account="standard.native.gemini"]');
  const gemini = JSON.parse(fs.readFileSync(path.join(repo, "snapshots", "standard.native.gemini.tools.json"), "utf8"));
  const shownGemini = await page.$$eval("#panel-tools .tool-list pre", (p) => p.map((x) => JSON.parse(x.textContent)));
  assert.deepEqual(shownGemini, gemini[0].functionDeclarations);
  await page.click("#panel-tools .tool-list summary >> nth=0");
  await screenshot(page, "report-tool-json", "#cell");
});

test("the comparison shows B − A for every item", async (t) => {
  const page = await load(t, { hash: "#compare=standard.native.openai,lite.native.openai" });
  const A = byName.get("standard.native.openai"), B = byName.get("lite.native.openai");
  const row = async (item) => page.$eval(`#compare-table tr[data-item="${item}"]`, (tr) => [...tr.children].map((c) => c.textContent));
  const n = (s) => Number(s.replace(/[,≈]/g, "").replace("−", "-").replace("±", ""));
  const sent = await row("sent");
  assert.equal(n(sent[1]), A.total.tokens);
  assert.equal(n(sent[2]), B.total.tokens);
  assert.equal(n(sent[3]), B.total.tokens - A.total.tokens);
  assert.equal(n(sent[6]), B.total.bytes - A.total.bytes);
  for (const s of A.sections) {
    const r = await row("section " + s.id);
    const b = B.sections.find((x) => x.id === s.id);
    assert.equal(n(r[3]), (b ? b.sent.tokens : 0) - s.sent.tokens, "section " + s.id);
  }
  for (const tool of A.tools.filter((x) => !B.tools.some((y) => y.name === x.name))) {
    const r = await row("tool " + tool.name);
    assert.equal(r[2], "—");
    assert.equal(n(r[3]), -tool.sent.tokens);
  }
  // Changing a side redraws and records the pair in the address.
  await page.selectOption("#compare-b", "standard.xml");
  const xml = byName.get("standard.xml");
  assert.equal(n((await row("sent"))[3]), xml.total.tokens - A.total.tokens);
  assert.match(page.url(), /compare=standard\.native\.openai%2Cstandard\.xml/);
  await screenshot(page, "report-compare", "#compare");
});

test("search and filters narrow the overview", async (t) => {
  const page = await load(t);
  const visible = () => page.$$eval("#matrix tbody tr:not([hidden])", (trs) => trs.map((tr) => tr.dataset.account));
  assert.equal(await page.textContent("#filter-count"), `${accounts.length} cells`);
  // Every word of the search is in the cell's name or dimensions.
  await page.fill("#filter-text", "lite XML");
  const want = accounts.filter((a) => a.profile === "lite" && a.transport === "xml").map((a) => a.name);
  assert.ok(want.length > 1);
  assert.deepEqual(await visible(), want);
  assert.equal(await page.textContent("#filter-count"), `${want.length} of ${accounts.length} cells`);
  // Filters add up with the search; a provider filter keeps that provider's cells.
  await page.fill("#filter-text", "");
  await page.selectOption("#filter-provider", "gemini");
  await page.selectOption("#filter-profile", "standard");
  assert.deepEqual(await visible(), accounts.filter((a) => a.provider === "gemini" && a.profile === "standard").map((a) => a.name));
  // Cells without a provider (tools in the prompt) have a value of their own.
  await page.selectOption("#filter-provider", { label: "none (tools in the prompt)" });
  assert.deepEqual(await visible(), accounts.filter((a) => !a.provider && a.profile === "standard").map((a) => a.name));
  // Sorting keeps the filter; the keyboard skips hidden rows.
  await page.click('#matrix button[data-sort="sent"]');
  const sorted = await visible();
  assert.equal(sorted.length, accounts.filter((a) => !a.provider && a.profile === "standard").length);
  await page.focus(`#matrix tbody tr[data-account="${sorted[0]}"]`);
  await page.keyboard.press("ArrowDown");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.account), sorted[1]);
  // Nothing matches: said so.
  await page.fill("#filter-text", "no-such-cell");
  assert.deepEqual(await visible(), []);
  assert.equal(await page.isVisible("#filter-empty"), true);
  await page.check("#filter-over");
  assert.equal(await page.textContent("#filter-count"), `0 of ${accounts.length} cells`);
  await screenshot(page, "report-filters", "#overview");
});

test("two cells' texts side by side, changed lines marked", async (t) => {
  const page = await load(t, { hash: "#compare=standard.xml,lite.xml" });
  const island = await page.$eval("#promptc-data", (s) => s.textContent);
  const D = JSON.parse(zlib.inflateRawSync(Buffer.from(island, "base64")).toString("utf8"));
  const prompt = (cell) => D.cells[cell].segments.map(([, i]) => D.texts[i]).join("");
  const lines = (s) => s.replace(/\n$/, "").split("\n");
  const rows = () => page.$$eval("#compare-text tbody tr", (trs) => trs.map((tr) => ({
    kind: tr.dataset.kind, a: tr.querySelector("td.a")?.textContent, b: tr.querySelector("td.b")?.textContent,
    bg: tr.querySelector("td.a") && getComputedStyle(tr.querySelector(tr.dataset.kind === "add" ? "td.b" : "td.a")).backgroundColor,
  })));
  // Every line: column A is A's prompt, column B is B's, unchanged rows are equal, changed rows
  // are marked (coloured) and unchanged ones are not.
  await page.check("#compare-all");
  let all = await rows();
  assert.deepEqual(all.filter((r) => r.kind !== "add").map((r) => r.a), lines(prompt("standard.xml")));
  assert.deepEqual(all.filter((r) => r.kind !== "del").map((r) => r.b), lines(prompt("lite.xml")));
  for (const r of all.filter((r) => r.kind === "same")) assert.equal(r.a, r.b);
  const changed = all.filter((r) => r.kind !== "same");
  assert.ok(changed.length > 0 && changed.length < all.length, `${changed.length} changed of ${all.length}`);
  const plain = all.find((r) => r.kind === "same").bg;
  for (const r of changed) assert.notEqual(r.bg, plain, `a ${r.kind} row is marked`);
  assert.match(await page.textContent("#compare-text-count"), /^\d+ lines? only in A, \d+ only in B$/);
  // Changed lines with three around them: unchanged runs fold into one row that counts them.
  await page.uncheck("#compare-all");
  const folded = await rows();
  const gaps = await page.$$eval('#compare-text tr[data-kind="gap"]', (trs) => trs.map((tr) => Number(tr.textContent.match(/\d+/)[0])));
  assert.ok(gaps.length > 0);
  assert.equal(folded.filter((r) => r.kind !== "gap").length + gaps.reduce((x, y) => x + y, 0), all.length);
  await screenshot(page, "report-side-by-side", "#compare");
  // The same cell on both sides: identical.
  await page.selectOption("#compare-b", "standard.xml");
  assert.equal(await page.textContent("#compare-text-count"), "the texts are identical");
  // The tools JSON of two native cells, one definition after another.
  await page.selectOption("#compare-a", "standard.native.openai");
  await page.selectOption("#compare-b", "lite.native.openai");
  await page.selectOption("#compare-what", "tools");
  await page.check("#compare-all");
  all = await rows();
  const tools = (name) => D.tools[name].map((i) => D.texts[i]).join("\n");
  assert.deepEqual(all.filter((r) => r.kind !== "add").map((r) => r.a), lines(tools("standard.native.openai")));
  assert.deepEqual(all.filter((r) => r.kind !== "del").map((r) => r.b), lines(tools("lite.native.openai")));
  // An xml cell has no tools JSON: said so.
  await page.selectOption("#compare-b", "lite.xml");
  assert.equal(await page.textContent("#compare-text-count"), "lite.xml has no tools JSON (its tools are in the prompt)");
});

test("harness messages are in the treemap", async (t) => {
  const page = await load(t, undefined, messagesPage);
  for (const a of messagesJson.accounts) {
    await page.click(`#matrix tbody tr[data-account="${a.name}"]`);
    const shares = await treemapShares(page);
    assertProportional(shares, a.name);
    assert.ok(a.messages.length >= 2);
    a.messages.forEach((m, i) => {
      const s = shares.find((x) => x.id === "message:" + i);
      assert.ok(s, `${a.name}: message ${i} drawn`);
      assert.equal(s.tokens, m.sent.tokens);
    });
    await page.hover('#treemap .node[data-id="message:0"]');
    assert.equal(await page.textContent("#details-title"), `${a.messages[0].role} message 1`);
    assert.match(await page.textContent('#details dd[data-field="kind"]'), new RegExp(`harness message \\(${a.messages[0].role}\\) · sections ${a.messages[0].sections.join(", ")}`));
  }
  await screenshot(page, "report-messages", ".treemap-wrap");
});

test("the chat templates tab shows each cell through the project's templates", async (t) => {
  const page = await load(t, undefined, chatPage);
  const snapshots = path.join(chatDir, "snapshots");
  const summary = JSON.parse(fs.readFileSync(path.join(snapshots, "summary.json"), "utf8"));
  let shown = 0;
  for (const a of chatJson.accounts) {
    await page.click(`#matrix tbody tr[data-account="${a.name}"]`);
    await page.click("#tab-chat");
    assert.equal(await page.isVisible("#panel-chat"), true);
    const cell = summary.cells.find((c) => c.cell === a.cell);
    const templates = Object.keys(cell.chat || {});
    // In the manifest's order on the page; summary.json lists them by name.
    const buttons = await page.$$eval("#panel-chat button", (bs) => bs.map((b) => b.dataset.template));
    assert.deepEqual([...buttons].sort(), [...templates].sort());
    for (const name of templates) {
      await page.click(`#panel-chat button[data-template="${name}"]`);
      const expected = fs.readFileSync(path.join(snapshots, cell.chat[name].name), "utf8");
      // The exact text, as the snapshot file holds it.
      assert.equal(await page.$eval("#panel-chat pre", (p) => p.textContent), expected, `${a.cell} through ${name}`);
      assert.equal(await page.getAttribute(`#panel-chat button[data-template="${name}"]`, "aria-pressed"), "true");
      shown += 1;
    }
  }
  assert.ok(shown >= 6, `${shown} texts shown`);
  await screenshot(page, "report-chat", "#panel-chat");
  // The example declares no chat template: the tab says so.
  const example = await load(t);
  await example.click("#tab-chat");
  assert.match(await example.textContent("#panel-chat"), /No chat template of the project covers this cell/);
});

test("dark scheme and print read well", async (t) => {
  const page = await load(t, { colorScheme: "dark" });
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const [r, g, b] = bg.match(/\d+/g).map(Number);
  assert.ok(r + g + b < 120, `a dark background (${bg})`);
  const fg = await page.evaluate(() => getComputedStyle(document.body).color);
  assert.ok(fg.match(/\d+/g).map(Number).reduce((x, y) => x + y) > 600, `light text (${fg})`);
  await screenshot(page, "report-dark", "#cell");
  await page.emulateMedia({ media: "print", colorScheme: "light" });
  assert.equal(await page.isVisible(".tabs"), false, "print hides the controls");
  assert.equal(await page.isVisible("#panel-tools"), true, "print shows both panels");
  await page.pdf({ path: path.join(artifacts, "report-print.pdf") });
});

test("a hostile project's text stays text and the page still loads nothing", async () => {
  const o = await open(browser, hostilePage);
  const { page, seen } = o;
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.deepEqual(seen.errors, []);
  assert.deepEqual(seen.requests, [o.url]);
  assert.equal(await page.$$eval("img, iframe, link, body style", (x) => x.length), 0);
  assert.match(await page.textContent("#panel-prompt"), /<\/script><script>window\.pwned = 1<\/script>/);
  await page.click("#tab-tools");
  assert.match(await page.textContent("#panel-tools"), /<script>window\.pwned = 4<\/script>/);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  await o.context.close();
});
