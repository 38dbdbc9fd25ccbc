// promptc report page. Reads the JSON island `promptc-data` (its `report` member is exactly
// `promptc report --format json`) and draws the matrix overview (with search and filters), a
// treemap of the selected cell (sections, tools, parameters, harness messages), its prompt and
// tool JSON, and a comparison of two cells (figures, and their texts side by side). Project text is inserted with
// textContent only; the page loads nothing (its Content-Security-Policy forbids it).
"use strict";
(function () {
  // The data island is JSON, deflated and base64-encoded (a 1,000-tool matrix is 25 MB of
  // JSON and 1 MB of island): decoded with the browser's own DecompressionStream.
  async function load() {
    const island = document.getElementById("promptc-data");
    const bin = atob(island.textContent);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(island.dataset.encoding.split(";")[0]));
    return JSON.parse(await new Response(inflated).text());
  }
  function fail(e) {
    const p = document.createElement("p");
    p.className = "warn";
    p.textContent = "This page could not read its data (" + e + "); it needs a browser with DecompressionStream " +
      "(Chrome 103, Firefox 113, Safari 16.4 or newer).";
    document.querySelector("main").prepend(p);
    throw e;
  }
  load().then(start, fail);

  function start(D) {
    const accounts = D.report.accounts;
    const byName = new Map(accounts.map((a) => [a.name, a]));
    const text = (i) => D.texts[i];

    // ---- small helpers -------------------------------------------------------------------
    function el(tag, attrs, ...kids) {
      const e = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs || {})) {
        if (v === null || v === undefined || v === false) continue;
        if (k === "class") e.className = v;
        else if (k === "text") e.textContent = v;
        else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? "" : String(v));
      }
      for (const kid of kids) {
        if (kid === null || kid === undefined) continue;
        e.append(kid instanceof Node ? kid : String(kid));
      }
      return e;
    }
    const num = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    const tok = (a, n) => (a.tokenizer.exact ? "" : "≈") + num(n);
    const pct = (x) => (x * 100).toFixed(1) + "%";
    const signed = (n) => (n > 0 ? "+" : n < 0 ? "−" : "±") + num(Math.abs(n));
    const budgetState = (a) => {
      if (!a.budgets.length) return { label: "—", cls: "none", order: 0 };
      const over = a.budgets.filter((b) => b.exceeded).length;
      return over ? { label: over + " over", cls: "over", order: 2 } : { label: "ok", cls: "ok", order: 1 };
    };
    const scopeName = (b) => (b.scope === "section" ? "section " + b.id : b.scope);

    // ---- matrix overview -----------------------------------------------------------------
    const columns = [
      { key: "name", label: "cell", get: (a) => a.name, text: true },
      { key: "profile", label: "profile", get: (a) => a.profile, text: true },
      { key: "case", label: "case", get: (a) => a.case || "", text: true },
      { key: "transport", label: "transport", get: (a) => a.transport, text: true },
      { key: "provider", label: "provider", get: (a) => a.provider || "", text: true },
      { key: "subagent", label: "sub-agent", get: (a) => a.subagent || "", text: true },
      { key: "sent", label: "sent tokens", get: (a) => a.total.tokens, show: (a) => tok(a, a.total.tokens) },
      { key: "billed", label: "billed", get: (a) => a.billed.total, show: (a) => (a.billed.exact ? "" : "≈") + num(a.billed.total) },
      { key: "prompt", label: "prompt", get: (a) => a.prompt.tokens, show: (a) => tok(a, a.prompt.tokens) },
      {
        key: "tools", label: "tools JSON", get: (a) => a.tools_sent.tokens,
        show: (a) => (a.transport === "native" ? tok(a, a.tools_sent.tokens) : "in prompt"),
      },
      { key: "cacheable", label: "cacheable", get: (a) => a.cache.cacheable, show: (a) => tok(a, a.cache.cacheable) },
      { key: "bytes", label: "bytes", get: (a) => a.total.bytes, show: (a) => num(a.total.bytes) },
      { key: "budget", label: "budget", get: (a) => budgetState(a).order, show: (a) => budgetState(a).label },
    ];
    const sort = { key: null, dir: 1 };
    const largest = Math.max(1, ...accounts.map((a) => a.total.tokens));
    let current = null;

    function drawMatrix() {
      const table = document.getElementById("matrix");
      const head = el("tr");
      for (const c of columns) {
        const state = sort.key === c.key ? (sort.dir > 0 ? "ascending" : "descending") : "none";
        head.append(el("th", { scope: "col", "aria-sort": state, class: c.text ? "" : "n" },
          el("button", { type: "button", "data-sort": c.key, onclick: () => sortBy(c.key) }, c.label)));
      }
      table.tHead.replaceChildren(head);
      let order = accounts.map((a, i) => [a, i]);
      if (sort.key) {
        const c = columns.find((x) => x.key === sort.key);
        order.sort(([a, i], [b, j]) => {
          const x = c.get(a), y = c.get(b);
          const cmp = c.text ? String(x).localeCompare(String(y), "en") : x - y;
          return cmp * sort.dir || i - j;
        });
      }
      const rows = order.map(([a]) => {
        const tr = el("tr", {
          tabindex: "0", "data-account": a.name, "aria-selected": String(a.name === current),
          onclick: () => select(a.name, true),
          onkeydown: (ev) => {
            if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(a.name, true); }
            else if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
              // The next row the filters show.
              let next = tr;
              do next = ev.key === "ArrowDown" ? next.nextElementSibling : next.previousElementSibling; while (next && next.hidden);
              if (next) { ev.preventDefault(); next.focus(); }
            }
          },
        });
        tr.style.setProperty("--heat", (a.total.tokens / largest).toFixed(3));
        for (const c of columns) {
          const td = el("td", { class: (c.text ? "" : "n") + (c.key === "sent" ? " heat" : "") + (c.key === "budget" ? " b-" + budgetState(a).cls : ""), "data-col": c.key },
            c.show ? c.show(a) : c.get(a));
          if (c.key === "name") td.prepend(el("span", { class: "sr" }, "select "));
          tr.append(td);
        }
        return tr;
      });
      table.tBodies[0].replaceChildren(...rows);
      applyFilters();
    }

    // ---- search and filters of the overview ---------------------------------------------
    const filter = { terms: [], profile: "", transport: "", provider: "", over: false };
    const NONE = "\u0000none";
    function matches(a) {
      if (filter.profile && a.profile !== filter.profile) return false;
      if (filter.transport && a.transport !== filter.transport) return false;
      if (filter.provider && (a.provider || NONE) !== filter.provider) return false;
      if (filter.over && !a.budgets.some((b) => b.exceeded)) return false;
      const hay = [a.name, a.profile, a.case, a.transport, a.provider, a.subagent].filter(Boolean).join(" ").toLowerCase();
      return filter.terms.every((t) => hay.includes(t));
    }
    function applyFilters() {
      let shown = 0;
      for (const tr of document.querySelectorAll("#matrix tbody tr")) {
        const on = matches(byName.get(tr.dataset.account));
        tr.hidden = !on;
        if (on) shown++;
      }
      document.getElementById("filter-count").textContent = shown === accounts.length
        ? `${accounts.length} ${accounts.length === 1 ? "cell" : "cells"}` : `${shown} of ${accounts.length} cells`;
      document.getElementById("filter-empty").hidden = shown > 0;
    }
    function setupFilters() {
      for (const key of ["profile", "transport", "provider"]) {
        const s = document.getElementById("filter-" + key);
        const values = [...new Set(accounts.map((a) => a[key] || NONE))];
        s.replaceChildren(el("option", { value: "" }, "all"),
          ...values.map((v) => el("option", { value: v }, v === NONE ? "none (tools in the prompt)" : v)));
        s.addEventListener("change", () => { filter[key] = s.value; applyFilters(); });
      }
      const input = document.getElementById("filter-text");
      input.addEventListener("input", () => {
        filter.terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
        applyFilters();
      });
      const over = document.getElementById("filter-over");
      over.addEventListener("change", () => { filter.over = over.checked; applyFilters(); });
    }

    function sortBy(key) {
      if (sort.key === key) sort.dir = -sort.dir;
      else { sort.key = key; sort.dir = columns.find((c) => c.key === key).text ? 1 : -1; }
      drawMatrix();
      const b = document.querySelector(`#matrix button[data-sort="${key}"]`);
      if (b) b.focus();
    }

    // ---- one cell: summary, treemap, prompt, tools ---------------------------------------
    function summary(a) {
      const dl = document.getElementById("cell-summary");
      const item = (k, v, title) => [el("dt", {}, k), el("dd", { title: title || null }, v)];
      const parts = [
        ...item("sent", `${tok(a, a.total.tokens)} tokens · ${num(a.total.bytes)} bytes`),
        ...item("prompt", `${tok(a, a.prompt.tokens)} tokens · ${num(a.prompt.bytes)} bytes`),
        ...item("tools JSON", a.transport === "native" ? `${tok(a, a.tools_sent.tokens)} tokens · ${num(a.tools_sent.bytes)} bytes` : "described in the prompt"),
        ...item(a.billed.exact ? "billed" : "billed ≈", `${num(a.billed.total)} tokens (prompt ${num(a.billed.prompt)}, tools ${num(a.billed.tools)})`, a.billed.method),
        ...item("cacheable prefix", `${tok(a, a.cache.cacheable)} tokens; ${tok(a, a.cache.uncached)} after it` +
          (a.cache.breakpoint_after ? ` (breakpoint after ${a.cache.breakpoint_after})` : "")),
        ...item("tokenizer", a.tokenizer.name + (a.tokenizer.exact ? "" : " (estimate)"), a.tokenizer.method),
      ];
      if (a.budgets.length) {
        const ul = el("ul", { class: "budgets" });
        for (const b of a.budgets) {
          ul.append(el("li", { class: b.exceeded ? "b-over" : "b-ok" },
            `${scopeName(b)}: ${num(b.actual)} / ${num(b.limit.limit)} ${b.limit.unit}${b.exceeded ? " — exceeded" : ""}`));
        }
        parts.push(el("dt", {}, "budgets"), el("dd", {}, ul));
      }
      dl.replaceChildren(...parts);
    }

    // The treemap's tree: sections, the text outside them and the tools (native: one group of
    // the tools JSON; xml/json: inside the section that describes them), then parameters.
    function tree(a) {
      const cell = D.cells[a.cell];
      const segOf = new Map();
      (cell ? cell.segments : []).forEach(([s], k) => { if (s !== null) segOf.set(s, k); });
      const after = (i) => cell && segOf.has(i) && segOf.get(i) >= cell.cache_segment;
      const toolNode = (t, uncached) => ({
        id: "tool:" + t.name, label: t.name, kind: "tool", tokens: t.sent.tokens, bytes: t.sent.bytes,
        source: t.source, extra: `toolset ${t.toolset}` + (t.part_of ? ` · part of section ${t.part_of}` : ""), uncached,
        children: t.params.map((p) => ({
          id: "param:" + t.name + "." + p.name, label: p.name, kind: "param", tokens: p.sent.tokens, bytes: p.sent.bytes,
          source: t.source, extra: `parameter of ${t.name}`, uncached, children: [],
        })),
        restLabel: `${t.name}: name, description, framing`,
      });
      const kids = a.sections.map((s, i) => ({
        id: "section:" + s.id, label: s.id, kind: s.dynamic ? "dynamic" : "static", tokens: s.sent.tokens,
        bytes: s.sent.bytes, source: s.source, section: i, uncached: after(i),
        extra: s.dynamic ? "dynamic: changes between sessions" : "static",
        children: a.tools.filter((t) => t.part_of === s.id).map((t) => toolNode(t, after(i))),
        restLabel: `${s.id}: text around the tools`,
      }));
      if (a.layout.bytes > 0) {
        kids.push({ id: "layout", label: "(outside sections)", kind: "layout", tokens: a.layout.tokens, bytes: a.layout.bytes,
          source: a.layout_source, extra: "separators and layout text", children: [] });
      }
      // The harness messages: sent after the system prompt, each a node of its own.
      (a.messages || []).forEach((m, i) => kids.push({
        id: "message:" + i, label: `${m.role} message ${i + 1}`, kind: "message", tokens: m.sent.tokens,
        bytes: m.sent.bytes, source: "", extra: `harness message (${m.role}) · sections ${m.sections.join(", ")}`,
        message: true, children: [],
      }));
      if (a.transport === "native" && a.tools_sent.bytes > 0) {
        kids.push({ id: "tools", label: `tools JSON (${a.provider})`, kind: "tools", tokens: a.tools_sent.tokens,
          bytes: a.tools_sent.bytes, source: "", extra: `${a.tools.length} tools, sent before the prompt (cacheable)`,
          children: a.tools.map((t) => toolNode(t, false)), restLabel: "tools JSON: brackets and separators" });
      }
      return { id: "all", label: a.name, kind: "root", tokens: a.total.tokens, bytes: a.total.bytes, source: "",
        extra: "the whole request", children: kids, restLabel: "" };
    }

    // Squarified treemap (Bruls, Huizing, van Wijk): rectangles with areas proportional to the
    // values, as close to square as the order allows. Values and the box are in any unit.
    function squarify(items, x, y, w, h) {
      const total = items.reduce((s, it) => s + it.value, 0);
      const out = [];
      if (total <= 0 || w <= 0 || h <= 0) return out;
      const scale = (w * h) / total;
      const list = items.filter((it) => it.value > 0).map((it, i) => ({ it, area: it.value * scale, i }))
        .sort((p, q) => q.area - p.area || p.i - q.i);
      let box = { x, y, w, h };
      let row = [], sum = 0, min = Infinity, max = 0;
      const worst = (s, mn, mx, side) => Math.max((side * side * mx) / (s * s), (s * s) / (side * side * mn));
      const place = () => {
        if (box.w >= box.h) {
          const cw = sum / box.h; let yy = box.y;
          for (const r of row) { const hh = r.area / cw; out.push({ it: r.it, x: box.x, y: yy, w: cw, h: hh }); yy += hh; }
          box = { x: box.x + cw, y: box.y, w: Math.max(0, box.w - cw), h: box.h };
        } else {
          const rh = sum / box.w; let xx = box.x;
          for (const r of row) { const ww = r.area / rh; out.push({ it: r.it, x: xx, y: box.y, w: ww, h: rh }); xx += ww; }
          box = { x: box.x, y: box.y + rh, w: box.w, h: Math.max(0, box.h - rh) };
        }
        row = []; sum = 0; min = Infinity; max = 0;
      };
      for (const r of list) {
        const side = Math.min(box.w, box.h);
        if (row.length && worst(sum + r.area, Math.min(min, r.area), Math.max(max, r.area), side) > worst(sum, min, max, side)) place();
        row.push(r); sum += r.area; min = Math.min(min, r.area); max = Math.max(max, r.area);
      }
      if (row.length) place();
      return out;
    }

    let path = [];       // the tree nodes from the root to the level shown
    let pinned = null;   // the node whose details stay shown

    function details(n, a) {
      const box = document.getElementById("details");
      if (!n) { box.replaceChildren(el("p", { class: "muted" }, "Hover or focus an item for its figures.")); return; }
      const rows = [
        ["tokens", tok(a, n.tokens)], ["bytes", num(n.bytes)],
        ["share of the cell", a.total.tokens ? pct(n.tokens / a.total.tokens) : "—"],
      ];
      if (n.source) rows.push(["source", n.source]);
      if (n.extra) rows.push(["kind", n.extra]);
      rows.push(["cache", n.message ? "a message after the system prompt" : n.uncached ? "after the cacheable prefix" : "in the cacheable prefix"]);
      if (n.children && n.children.length) rows.push(["contains", `${n.children.length} items (Enter to open)`]);
      const dl = el("dl", {});
      for (const [k, v] of rows) dl.append(el("dt", {}, k), el("dd", { "data-field": k }, v));
      const kids = [el("h3", { id: "details-title" }, n.label), dl];
      if (n.section !== undefined) {
        kids.push(el("button", { type: "button", class: "link", onclick: () => showSegment(n.section) }, "Show in the prompt"));
      }
      box.replaceChildren(...kids);
    }

    function drawTreemap(a, focusId) {
      const map = document.getElementById("treemap");
      const node = path[path.length - 1];
      const childSum = node.children.reduce((s, c) => s + c.tokens, 0);
      const items = node.children.map((c) => ({ value: c.tokens, node: c }));
      if (node.tokens > childSum && node.children.length) {
        items.push({ value: node.tokens - childSum, node: { id: node.id + ":rest", label: node.restLabel || "rest", kind: "rest",
          tokens: node.tokens - childSum, bytes: Math.max(0, node.bytes - node.children.reduce((s, c) => s + c.bytes, 0)),
          source: node.source, extra: "not in any item below", uncached: node.uncached, children: [] } });
      }
      const W = 1000, H = 1000 * (map.clientHeight || 420) / (map.clientWidth || 1000);
      const rects = squarify(items, 0, 0, W, H);
      map.dataset.level = node.id;
      map.dataset.tokens = String(Math.max(node.tokens, childSum));
      const els = rects.map((r, k) => {
        const n = r.it.node;
        const d = el("div", {
          class: `node k-${n.kind}${n.uncached ? " uncached" : ""}${n.children.length ? " has-kids" : ""}`,
          role: "button", tabindex: k === 0 ? "0" : "-1", "data-id": n.id, "data-tokens": n.tokens,
          "aria-label": `${n.label}: ${n.tokens} tokens`,
        }, el("span", { class: "label" }, n.label), el("span", { class: "num" }, tok(a, n.tokens)));
        d.style.left = (r.x / W * 100).toFixed(4) + "%";
        d.style.top = (r.y / H * 100).toFixed(4) + "%";
        d.style.width = (r.w / W * 100).toFixed(4) + "%";
        d.style.height = (r.h / H * 100).toFixed(4) + "%";
        d.addEventListener("mouseenter", () => details(n, a));
        d.addEventListener("mouseleave", () => details(pinned, a));
        d.addEventListener("focus", () => details(n, a));
        d.addEventListener("click", () => open(n, a));
        d.addEventListener("keydown", (ev) => {
          const all = [...map.children];
          const k2 = all.indexOf(d);
          let next = null;
          if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); open(n, a); return; }
          if (ev.key === "Escape" || ev.key === "Backspace") { ev.preventDefault(); up(a); return; }
          if (ev.key === "ArrowRight" || ev.key === "ArrowDown") next = all[k2 + 1];
          if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") next = all[k2 - 1];
          if (ev.key === "Home") next = all[0];
          if (ev.key === "End") next = all[all.length - 1];
          if (next) { ev.preventDefault(); d.tabIndex = -1; next.tabIndex = 0; next.focus(); }
        });
        return d;
      });
      map.replaceChildren(...els);
      const crumbs = document.getElementById("crumbs");
      crumbs.replaceChildren(...path.map((p, i) => i === path.length - 1
        ? el("span", { "aria-current": "location" }, p.label)
        : el("button", { type: "button", class: "link", onclick: () => { path = path.slice(0, i + 1); drawTreemap(a); } }, p.label)));
      if (focusId) {
        const f = [...map.children].find((x) => x.dataset.id === focusId);
        if (f) { map.querySelector('[tabindex="0"]').tabIndex = -1; f.tabIndex = 0; f.focus(); }
      }
    }

    function open(n, a) {
      pinned = n;
      details(n, a);
      if (n.children && n.children.length) {
        path.push(n);
        drawTreemap(a);
        const first = document.querySelector("#treemap .node");
        if (first) first.focus();
      }
    }

    function up(a) {
      if (path.length < 2) return;
      const left = path.pop();
      drawTreemap(a, left.id);
    }

    function drawPrompt(a) {
      const panel = document.getElementById("panel-prompt");
      const cell = D.cells[a.cell];
      if (!cell) { panel.replaceChildren(el("p", { class: "muted" }, "No prompt for this cell.")); return; }
      const out = [];
      cell.segments.forEach(([s, t], k) => {
        if (k === cell.cache_segment) {
          out.push(el("div", { class: "cache-break", role: "separator", id: "cache-break" },
            `▲ cacheable prefix: ${tok(a, a.cache.cacheable)} tokens with the tools · ▼ changes between sessions: ${tok(a, a.cache.uncached)} tokens`));
        }
        if (s === null) { out.push(el("pre", { class: "seg-layout" }, text(t))); return; }
        const sec = a.sections[s];
        out.push(el("section", { class: `seg k-${sec.dynamic ? "dynamic" : "static"}`, id: "seg-" + s, "data-section": sec.id, tabindex: "-1" },
          el("header", {}, el("b", {}, sec.id), ` · ${sec.source} · ${tok(a, sec.sent.tokens)} tokens · ${num(sec.sent.bytes)} bytes · ${sec.dynamic ? "dynamic" : "static"}`),
          el("pre", {}, text(t))));
      });
      panel.replaceChildren(...out);
    }

    let toolsDrawnFor = null;
    function drawTools(a) {
      const panel = document.getElementById("panel-tools");
      if (toolsDrawnFor === a.name) return;
      toolsDrawnFor = a.name;
      const siblings = accounts.filter((b) => b.cell === a.cell && b.provider && D.tools[b.name]);
      if (!siblings.length) {
        const holder = a.tools.find((t) => t.part_of);
        panel.replaceChildren(el("p", { class: "muted" }, `This ${a.transport} cell sends no tools JSON: its tools are described in the prompt` +
          (holder ? ` (section ${holder.part_of}).` : ".")));
        return;
      }
      let shown = siblings.find((b) => b.name === a.name) || siblings[0];
      const bar = el("div", { class: "providers", role: "group", "aria-label": "Provider" });
      const list = el("div", { class: "tool-list" });
      const show = (b) => {
        shown = b;
        for (const btn of bar.children) btn.setAttribute("aria-pressed", String(btn.dataset.account === b.name));
        list.replaceChildren(...D.tools[b.name].map((t, i) => {
          const tool = b.tools[i];
          return el("details", { "data-tool": tool ? tool.name : "" },
            el("summary", {}, `${tool ? tool.name : "tool " + i} · ${tool ? tok(b, tool.sent.tokens) : ""} tokens · ${tool ? tool.source : ""}`),
            el("pre", {}, text(t)));
        }));
      };
      for (const b of siblings) {
        bar.append(el("button", { type: "button", "data-account": b.name, onclick: () => show(b) }, b.provider));
      }
      panel.replaceChildren(bar, list);
      show(shown);
    }

    // The cell through each of the project's chat templates (`chat_templates:`): the text an
    // open-weight model's server sends, one template at a time.
    function drawChat(a) {
      const panel = document.getElementById("panel-chat");
      const through = (D.chat || {})[a.cell] || [];
      if (!through.length) {
        panel.replaceChildren(el("p", { class: "muted" }, a.transport === "native"
          ? "No chat template of the project covers this cell (chat_templates: in promptc.yaml)."
          : `Chat templates render native cells; this is a ${a.transport} cell.`));
        return;
      }
      const bar = el("div", { class: "providers", role: "group", "aria-label": "Chat template" });
      const out = el("pre", { class: "chat-text" });
      const show = (k) => {
        for (const btn of bar.children) btn.setAttribute("aria-pressed", String(btn.dataset.template === through[k][0]));
        out.textContent = text(through[k][1]);
      };
      through.forEach(([name], k) => bar.append(el("button", { type: "button", "data-template": name, onclick: () => show(k) }, name)));
      panel.replaceChildren(bar, out);
      show(0);
    }

    const TABS = [["tab-prompt", "panel-prompt"], ["tab-tools", "panel-tools"], ["tab-chat", "panel-chat"]];
    function tab(which) {
      for (const [id, panel] of TABS) {
        const on = id === which;
        const t = document.getElementById(id);
        t.setAttribute("aria-selected", String(on));
        t.tabIndex = on ? 0 : -1;
        document.getElementById(panel).hidden = !on;
      }
      if (which === "tab-tools" && current) drawTools(byName.get(current));
      if (which === "tab-chat" && current) drawChat(byName.get(current));
    }

    function showSegment(i) {
      tab("tab-prompt");
      const s = document.getElementById("seg-" + i);
      if (s) { s.scrollIntoView({ block: "start" }); s.focus({ preventScroll: true }); }
    }

    function select(name, fromUser) {
      const a = byName.get(name);
      if (!a) return;
      current = name;
      for (const tr of document.querySelectorAll("#matrix tbody tr")) tr.setAttribute("aria-selected", String(tr.dataset.account === name));
      document.getElementById("cell-title").textContent = a.name;
      summary(a);
      path = [tree(a)];
      pinned = null;
      details(null, a);
      drawTreemap(a);
      drawPrompt(a);
      toolsDrawnFor = null;
      if (!document.getElementById("panel-tools").hidden) drawTools(a);
      if (!document.getElementById("panel-chat").hidden) drawChat(a);
      if (fromUser) {
        writeHash();
        document.getElementById("cell").scrollIntoView({ block: "start" });
      }
    }

    // ---- comparison ----------------------------------------------------------------------
    function compareRows(a, b) {
      const rows = [];
      const add = (label, x, y, kind) => rows.push({ label, x, y, kind });
      const ids = [...a.sections.map((s) => s.id), ...b.sections.map((s) => s.id).filter((id) => !a.sections.some((s) => s.id === id))];
      for (const id of ids) {
        add("section " + id, a.sections.find((s) => s.id === id)?.sent, b.sections.find((s) => s.id === id)?.sent, "section");
      }
      add("(outside sections)", a.layout, b.layout, "section");
      const names = [...a.tools.map((t) => t.name), ...b.tools.map((t) => t.name).filter((n) => !a.tools.some((t) => t.name === n))];
      for (const n of names) {
        const ta = a.tools.find((t) => t.name === n), tb = b.tools.find((t) => t.name === n);
        add("tool " + n + ((ta || tb).part_of ? " (in the prompt)" : ""), ta?.sent, tb?.sent, "tool");
      }
      add("prompt", a.prompt, b.prompt, "total");
      add("tools JSON", a.tools_sent, b.tools_sent, "total");
      add("sent", a.total, b.total, "total");
      add(a.billed.exact && b.billed.exact ? "billed" : "billed ≈", { tokens: a.billed.total, bytes: null }, { tokens: b.billed.total, bytes: null }, "total");
      add("cacheable", { tokens: a.cache.cacheable, bytes: null }, { tokens: b.cache.cacheable, bytes: null }, "total");
      return rows;
    }

    function drawCompare() {
      const A = byName.get(document.getElementById("compare-a").value);
      const B = byName.get(document.getElementById("compare-b").value);
      const table = document.getElementById("compare-table");
      table.tHead.replaceChildren(el("tr", {}, ...["item", "A tokens", "B tokens", "Δ tokens", "A bytes", "B bytes", "Δ bytes"]
        .map((h, i) => el("th", { scope: "col", class: i ? "n" : "" }, h))));
      if (!A || !B) return;
      const cell = (v) => el("td", { class: "n" }, v === undefined || v === null ? "—" : num(v));
      const delta = (x, y) => {
        if ((x === undefined || x === null) && (y === undefined || y === null)) return el("td", { class: "n" }, "—");
        const d = (y || 0) - (x || 0);
        return el("td", { class: "n d " + (d > 0 ? "up" : d < 0 ? "down" : "same"), "data-delta": d }, signed(d));
      };
      table.tBodies[0].replaceChildren(...compareRows(A, B).map((r) => el("tr", {
        class: "r-" + r.kind + (!r.x ? " only-b" : !r.y ? " only-a" : ""), "data-item": r.label,
      }, el("th", { scope: "row" }, r.label), cell(r.x?.tokens), cell(r.y?.tokens), delta(r.x?.tokens, r.y?.tokens),
        cell(r.x?.bytes), cell(r.y?.bytes), r.x?.bytes === null || r.y?.bytes === null ? el("td", { class: "n" }, "—") : delta(r.x?.bytes, r.y?.bytes))));
    }

    // ---- the two cells' texts side by side ----------------------------------------------
    // A cell's text: its prompt (sections and the text between them, in order), or its tools
    // JSON (one definition after another); null when it has none.
    function cellText(a, what) {
      if (what === "tools") {
        const t = D.tools[a.name];
        return t ? t.map(text).join("\n") + "\n" : null;
      }
      const cell = D.cells[a.cell];
      return cell ? cell.segments.map(([, t]) => text(t)).join("") : null;
    }

    // Lines of x against lines of y: rows of [kind, line of x or null, line of y or null], kind
    // same, del (x only), add (y only) or chg (a removed and an added line paired). The longest
    // common subsequence of the lines between their common start and end; past 4 million cells
    // of its table, the lines between are all changed.
    function lineRows(x, y) {
      const a = x.split("\n"), b = y.split("\n");
      if (a[a.length - 1] === "") a.pop();
      if (b[b.length - 1] === "") b.pop();
      let pre = 0;
      while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
      let suf = 0;
      while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
      const A = a.slice(pre, a.length - suf), B = b.slice(pre, b.length - suf);
      const ops = []; // [op, i, j]: "=" both, "-" A[i], "+" B[j]
      if (A.length * B.length <= 4e6) {
        const w = B.length + 1;
        const L = new Uint32Array((A.length + 1) * w);
        for (let i = A.length - 1; i >= 0; i--) {
          for (let j = B.length - 1; j >= 0; j--) {
            L[i * w + j] = A[i] === B[j] ? L[(i + 1) * w + j + 1] + 1 : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
          }
        }
        let i = 0, j = 0;
        while (i < A.length && j < B.length) {
          if (A[i] === B[j]) { ops.push(["=", i++, j++]); }
          else if (L[(i + 1) * w + j] >= L[i * w + j + 1]) ops.push(["-", i++, null]);
          else ops.push(["+", null, j++]);
        }
        while (i < A.length) ops.push(["-", i++, null]);
        while (j < B.length) ops.push(["+", null, j++]);
      } else {
        A.forEach((_, i) => ops.push(["-", i, null]));
        B.forEach((_, j) => ops.push(["+", null, j]));
      }
      const rows = [];
      for (let k = 0; k < pre; k++) rows.push(["same", k, k]);
      // A run of removed and added lines: paired while both last.
      for (let k = 0; k < ops.length;) {
        if (ops[k][0] === "=") { rows.push(["same", pre + ops[k][1], pre + ops[k][2]]); k++; continue; }
        const del = [], add = [];
        while (k < ops.length && ops[k][0] !== "=") {
          if (ops[k][0] === "-") del.push(pre + ops[k][1]); else add.push(pre + ops[k][2]);
          k++;
        }
        for (let m = 0; m < Math.max(del.length, add.length); m++) {
          const i = m < del.length ? del[m] : null, j = m < add.length ? add[m] : null;
          rows.push([i !== null && j !== null ? "chg" : i !== null ? "del" : "add", i, j]);
        }
      }
      for (let k = 0; k < suf; k++) rows.push(["same", a.length - suf + k, b.length - suf + k]);
      return { rows, a, b };
    }

    const CONTEXT = 3;
    function drawCompareText() {
      const A = byName.get(document.getElementById("compare-a").value);
      const B = byName.get(document.getElementById("compare-b").value);
      const table = document.getElementById("compare-text");
      const count = document.getElementById("compare-text-count");
      if (!A || !B) return;
      const what = document.getElementById("compare-what").value;
      const all = document.getElementById("compare-all").checked;
      const x = cellText(A, what), y = cellText(B, what);
      table.replaceChildren();
      table.append(el("colgroup", {}, el("col", { class: "ln" }), el("col", {}), el("col", { class: "ln" }), el("col", {})));
      table.append(el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", { scope: "col" }, "A " + A.name),
        el("th", {}, ""), el("th", { scope: "col" }, "B " + B.name))));
      const body = el("tbody", {});
      table.append(body);
      if (x === null || y === null) {
        const none = x === null ? A : B;
        count.textContent = `${none.name} has no ${what === "tools" ? "tools JSON (its tools are in the prompt)" : "prompt"}`;
        return;
      }
      const { rows, a, b } = lineRows(x, y);
      const changed = rows.map((r) => r[0] !== "same");
      const near = (k) => {
        for (let d = -CONTEXT; d <= CONTEXT; d++) if (changed[k + d]) return true;
        return false;
      };
      let hidden = 0;
      const flush = () => {
        if (!hidden) return;
        body.append(el("tr", { class: "gap", "data-kind": "gap" }, el("td", { colspan: "4" }, `… ${hidden} unchanged ${hidden === 1 ? "line" : "lines"}`)));
        hidden = 0;
      };
      rows.forEach(([kind, i, j], k) => {
        if (!all && kind === "same" && !near(k)) { hidden++; return; }
        flush();
        body.append(el("tr", { class: kind, "data-kind": kind },
          el("td", { class: "ln" }, i === null ? "" : String(i + 1)), el("td", { class: "a" }, i === null ? "" : a[i]),
          el("td", { class: "ln" }, j === null ? "" : String(j + 1)), el("td", { class: "b" }, j === null ? "" : b[j])));
      });
      flush();
      const del = rows.filter((r) => r[0] === "del" || r[0] === "chg").length;
      const add = rows.filter((r) => r[0] === "add" || r[0] === "chg").length;
      count.textContent = del + add === 0 ? "the texts are identical" : `${del} ${del === 1 ? "line" : "lines"} only in A, ${add} only in B`;
    }

    function setupCompare(pair) {
      const sa = document.getElementById("compare-a"), sb = document.getElementById("compare-b");
      for (const s of [sa, sb]) {
        s.replaceChildren(...accounts.map((a) => el("option", { value: a.name }, a.name)));
        s.addEventListener("change", () => { drawCompare(); drawCompareText(); writeHash(); });
      }
      for (const id of ["compare-what", "compare-all"]) document.getElementById(id).addEventListener("change", drawCompareText);
      const first = accounts[0];
      const counterpart = accounts.find((b) => b.profile !== first.profile && b.transport === first.transport &&
        b.provider === first.provider && b.case === first.case && b.subagent === first.subagent) || accounts[1] || first;
      sa.value = pair && byName.has(pair[0]) ? pair[0] : first.name;
      sb.value = pair && byName.has(pair[1]) ? pair[1] : counterpart.name;
      drawCompare();
      drawCompareText();
    }

    // ---- state in the address: #cell=NAME&compare=A,B ----------------------------------------
    function readHash() {
      const p = new URLSearchParams(location.hash.slice(1));
      return { cell: p.get("cell"), compare: p.get("compare") ? p.get("compare").split(",") : null };
    }
    function writeHash() {
      const p = new URLSearchParams();
      if (current) p.set("cell", current);
      p.set("compare", document.getElementById("compare-a").value + "," + document.getElementById("compare-b").value);
      history.replaceState(null, "", "#" + p.toString());
    }

    // ---- start ---------------------------------------------------------------------------
    const names = [...new Set(accounts.map((a) => a.tokenizer.name))];
    document.getElementById("subtitle").textContent =
      `project ${D.project} · ${accounts.length} ${accounts.length === 1 ? "cell" : "cells"} · tokens counted with ${names.join(", ")}`;
    document.getElementById("footer").textContent =
      `${D.generator} · figures as in promptc report --format json · billed figures are estimates (≈) but ` +
      "Gemini's, google-genai's own count";
    document.getElementById("tab-prompt").addEventListener("click", () => tab("tab-prompt"));
    document.getElementById("tab-tools").addEventListener("click", () => tab("tab-tools"));
    document.getElementById("tab-chat").addEventListener("click", () => tab("tab-chat"));
    document.querySelector(".tabs").addEventListener("keydown", (ev) => {
      if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
        const at = TABS.findIndex(([id]) => document.getElementById(id).getAttribute("aria-selected") === "true");
        const next = TABS[(at + (ev.key === "ArrowRight" ? 1 : TABS.length - 1)) % TABS.length][0];
        tab(next);
        document.getElementById(next).focus();
      }
    });
    const hash = readHash();
    setupFilters();
    drawMatrix();
    if (accounts.length) select(hash.cell && byName.has(hash.cell) ? hash.cell : accounts[0].name, false);
    window.addEventListener("hashchange", () => {
      const h = readHash();
      if (h.cell && h.cell !== current && byName.has(h.cell)) select(h.cell, false);
    });
    // The comparison (below the fold, one row per section and tool) is drawn after the first
    // cell, so the page answers sooner on large projects.
    setupCompare(hash.compare);
    document.documentElement.dataset.ready = "true";
  }
})();
