// Benchmark (not a test): how long a report page takes to become interactive in headless
// chromium, and how long opening its largest tool level takes. Run by `cargo bench --bench
// html` on the example's and a 1,000-tool synthetic project's pages, or by hand:
//
//   node tests/browser/bench.js PAGE.html [RUNS]
//
// "Interactive" is the moment the page's script has drawn the overview, the first cell's
// treemap and its prompt (it then sets data-ready on <html>), measured from navigation start
// with the page's own clock; the median of RUNS fresh pages (default 5) is printed.
"use strict";
const { launch, open } = require("./browser.js");

async function main() {
  const [file, runsArg] = process.argv.slice(2);
  if (!file) throw new Error("usage: node bench.js PAGE.html [RUNS]");
  const runs = Number(runsArg || 5);
  const browser = await launch();
  const ready = [], tools = [], nodes = [];
  for (let i = 0; i < runs; i++) {
    const o = await open(browser, file);
    ready.push(await o.page.evaluate(() => performance.now()));
    if (await o.page.$('#treemap .node[data-id="tools"]')) {
      const t = await o.page.evaluate(async () => {
        const start = performance.now();
        document.querySelector('#treemap .node[data-id="tools"]').click();
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        return performance.now() - start;
      });
      tools.push(t);
      nodes.push(await o.page.$$eval("#treemap .node", (n) => n.length));
    }
    if (o.seen.errors.length) throw new Error("page errors: " + o.seen.errors.join("; "));
    await o.context.close();
  }
  await browser.close();
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const line = { page: file, runs, interactive_ms: Math.round(median(ready)) };
  if (tools.length) Object.assign(line, { open_tools_ms: Math.round(median(tools)), tool_rects: nodes[0] });
  console.log(JSON.stringify(line));
}

main().catch((e) => { console.error(e); process.exit(1); });
