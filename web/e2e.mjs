// Browser end-to-end test of the built site (dist/): drop a recording on the
// canvas and check through window.puffinLens that the app holds exactly what
// the native CLI answers (a .puffin file and a JSON dump); click "Try an
// example" and "Open…" on the canvas; drop a damaged
// and a broken file; load ?url= (progress bars checked);
// watch a running app live through `puffin-lens relay` (?live=);
// reload offline through the service worker; and make sure the page asks for
// nothing but its own files. Screenshots go to target/e2e/.
//
// Usage: node web/e2e.mjs   (after `trunk build --release` and `cargo test`,
// which builds the native binary and examples it runs; PUFFIN_LENS_PROFILE=release
// runs those of `cargo build --release`, PUFFIN_LENS_BIN another binary)

import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execFileSync, spawn } from "node:child_process";
import { BIN, OUT, ROOT, cli, dropFile, example, freePort, launch, openApp, read, runner, serve, tempDir, waitLoaded } from "./harness.mjs";

const SAMPLES = join(ROOT, "samples");
const SAMPLE = "threads_demo.puffin";

const { test, finish } = runner();

mkdirSync(OUT, { recursive: true });
const work = tempDir("puffin-lens-e2e-");
const sampleBytes = read(join(SAMPLES, SAMPLE));
// Cut inside the last frame: 11 intact frames, 1 damaged.
const cutBytes = sampleBytes.subarray(0, sampleBytes.length - 100);
writeFileSync(join(work, "cut.puffin"), cutBytes);

const expected = {
  summary: JSON.parse(cli(["summary", SAMPLE, "--json"], { cwd: SAMPLES })),
  dump: cli(["dump", SAMPLE], { cwd: SAMPLES }),
  top: JSON.parse(cli(["top", SAMPLE, "--top", "5", "--json"], { cwd: SAMPLES })),
  aggregate: JSON.parse(cli(["find", SAMPLE, "--aggregate", "--by", "name", "--json"], { cwd: SAMPLES })),
  tree: JSON.parse(cli(["tree", SAMPLE, "--json"], { cwd: SAMPLES })),
  slowestFrame: JSON.parse(cli(["frames", SAMPLE, "--top", "1", "--json"], { cwd: SAMPLES }))[0],
  aggregateAll: JSON.parse(cli(["find", SAMPLE, "--aggregate", "--by", "name", "--top", "1000", "--json"], { cwd: SAMPLES })),
  callers: JSON.parse(cli(["callers", SAMPLE, "frame_body", "--json"], { cwd: SAMPLES })),
  calls: JSON.parse(cli(["calls", SAMPLE, "frame_body", "--json"], { cwd: SAMPLES })),
  diffTree: JSON.parse(cli(["diff", SAMPLE, join(work, "cut.puffin"), "--json"], { cwd: SAMPLES, status: 3 })),
  compareAll: JSON.parse(cli(["compare", SAMPLE, join(work, "cut.puffin"), "--top", "100000", "--json"], { cwd: SAMPLES, status: 3 })),
  cutSummary: JSON.parse(cli(["summary", "cut.puffin", "--json"], { cwd: work, status: 3 })),
  cutDump: cli(["dump", "cut.puffin"], { cwd: work, status: 3 }),
};

// Issue 21's worst case, A and B: 2M scopes nested at random from 300 names,
// a unique data string on nine in ten (write::puffin::worst_case_capture).
for (const [side, seed] of [["a", "1"], ["b", "2"]]) {
  execFileSync(example("capture"), ["worst", join(work, `worst_${side}.puffin`), seed], { stdio: "ignore" });
}
// Several runs of records for the decode workers: 60 frames of the worst
// case (600k scopes, about 10 MB of lz4).
execFileSync(example("capture"), ["worst", join(work, "runs.puffin"), "3", "60"], { stdio: "ignore" });
// 1,000 frames of 10 ms, a 9 ms scope in each: the timeline zoomed out.
execFileSync(example("capture"), ["spaced", join(work, "spaced.puffin"), "1000"], { stdio: "ignore" });
const FIXTURES = join(ROOT, "tests", "fixtures");
const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith(".puffin")).sort();
const server = await serve({
  ...Object.fromEntries(fixtures.map((f) => [f, join(FIXTURES, f)])),
  "runs.puffin": join(work, "runs.puffin"),
  [SAMPLE]: join(SAMPLES, SAMPLE),
  "cut.puffin": join(work, "cut.puffin"),
  "spaced.puffin": join(work, "spaced.puffin"),
  "worst_a.puffin": join(work, "worst_a.puffin"),
  "worst_b.puffin": join(work, "worst_b.puffin"),
});
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
const requests = [];
context.on("request", (r) => requests.push(r.url()));
// Every page records what its HTML progress bar showed (downloads, decoding).
await context.addInitScript(() => {
  window.__progressSeen = [];
  addEventListener("DOMContentLoaded", () => {
    const bar = document.getElementById("load_progress");
    new MutationObserver(() => {
      if (!bar.hidden) window.__progressSeen.push(bar.textContent);
    }).observe(bar, { attributes: true, childList: true, subtree: true });
  });
});
const progressShown = (p) =>
  p.evaluate(() => ({ seen: window.__progressSeen, hiddenNow: document.getElementById("load_progress").hidden }));
let page;
let unreachableUrl = null;

await test("the app starts under a sub-path and shows the welcome screen", async () => {
  page = await openApp(context, server.base);
  const status = await page.evaluate(() => window.puffinLens.status());
  const { memory, timings, workers_ready, ...rest } = status;
  // The decode workers start once the first frame is on screen.
  assert.ok(Number.isInteger(workers_ready), JSON.stringify(status));
  // The start-up, in order: the .wasm downloaded, the module running, eframe
  // started, the first frame drawn (status().timings, from the page's start).
  const names = timings.map((t) => t.name);
  for (const want of ["wasm-downloaded", "wasm-started", "eframe-started", "first-frame"]) {
    assert.ok(names.includes(want), `${want} in ${JSON.stringify(timings)}`);
  }
  const at = (n) => timings.find((t) => t.name === n).at_ms;
  assert.ok(at("wasm-downloaded") <= at("wasm-started") && at("wasm-started") <= at("eframe-started"), JSON.stringify(timings));
  console.log(`     start-up: ${timings.map((t) => `${t.name} ${Math.round(t.at_ms)} ms`).join(", ")}`);
  assert.deepEqual(rest, { loading: null, fetching: null, reading: null, error: null, replaced: null, a: null, b: null, decoded_by: { a: null, b: null }, shown: "a", live: null });
  // The app holds a few MB before anything is open; a wasm32 tab can have 4 GiB.
  assert.ok(memory.in_use_bytes > 0 && memory.in_use_bytes < 64 << 20, JSON.stringify(memory));
  assert.ok(memory.wasm_bytes >= memory.in_use_bytes, JSON.stringify(memory));
  assert.equal(memory.limit_bytes, 4 * 2 ** 30);
  assert.equal(await page.evaluate(() => window.puffinLens.summary()), null);
  await page.screenshot({ path: join(OUT, "welcome.png") });
});

await test("clicks on the canvas: Try an example opens the example pair on its findings and pacing, Open… the file picker", async () => {
  const p = await openApp(context, server.base);
  // Listen early: Playwright intercepts the picker only once a listener is
  // in place, which takes a round trip to the browser.
  const chooserShown = new Promise((resolve) => p.once("filechooser", resolve));
  // The welcome screen's centered "Try an example" button, at 1400x900.
  await p.mouse.click(700, 341);
  await waitLoaded(p, "example_after.puffin", "b");
  assert.equal((await p.evaluate(() => window.puffinLens.status())).a, "example_before.puffin");
  const exampleSummary = JSON.parse(cli(["summary", "example_before.puffin", "--json"], { cwd: SAMPLES }));
  assert.deepEqual(await p.evaluate(() => window.puffinLens.summary("a")), exampleSummary);
  // The pair lands on its findings, the frame pacing the CLI's.
  const pacing = JSON.parse(cli(["pacing", "example_before.puffin", "example_after.puffin", "--json"], { cwd: SAMPLES }));
  await p.waitForFunction(() => window.puffinLens.ui()?.view === "findings" && window.puffinLens.ui().computing === false, null, { timeout: 120_000, polling: 100 });
  const ui = await p.evaluate(() => window.puffinLens.ui());
  assert.equal(ui.view, "findings", JSON.stringify(ui).slice(0, 300));
  assert.equal(ui.pacing.headline, pacing.headline);
  assert.equal(ui.pacing_picture.sides.length, 2);
  await p.screenshot({ path: join(OUT, "example_findings.png") });
  // The top bar's "Open…" button: the browser's file picker; the pick opens as B.
  await p.mouse.click(146, 12);
  const chooser = await Promise.race([
    chooserShown,
    new Promise((_, reject) => setTimeout(() => reject(new Error("no file picker within 30 s")), 30_000)),
  ]);
  assert.ok(chooser.isMultiple(), "several files can be picked");
  await chooser.setFiles({ name: "picked.puffin", mimeType: "application/octet-stream", buffer: sampleBytes });
  await waitLoaded(p, "picked.puffin", "b");
  assert.equal((await p.evaluate(() => window.puffinLens.summary("b"))).scopes, expected.summary.scopes);
  assert.ok((await progressShown(p)).seen.includes("Reading picked.puffin: 0.0 of 0.0 MB"));
  await p.screenshot({ path: join(OUT, "example.png") });
  await p.close();
});

await test("a dropped recording loads; summary, dumpJson and queries equal the native CLI", async () => {
  await dropFile(page, SAMPLE, sampleBytes);
  await waitLoaded(page, SAMPLE);
  const progress = await progressShown(page);
  assert.ok(progress.seen.some((t) => t.startsWith(`Reading ${SAMPLE}:`)), `reading progress: ${JSON.stringify(progress.seen)}`);
  assert.ok(progress.seen.some((t) => t.startsWith(`Decoding ${SAMPLE}:`)), `decoding progress: ${JSON.stringify(progress.seen)}`);
  assert.ok(progress.hiddenNow, "progress bar hidden once loaded");
  const marks = (await page.evaluate(() => window.puffinLens.status().timings)).map((t) => t.name);
  const [started, decoded] = [marks.indexOf(`load-start ${SAMPLE}`), marks.indexOf(`decoded ${SAMPLE}`)];
  assert.ok(started >= 0 && decoded > started, JSON.stringify(marks));
  const got = await page.evaluate(() => ({
    summary: window.puffinLens.summary(),
    dump: window.puffinLens.dumpJson(),
    top: window.puffinLens.query("top", { top: 5 }),
    aggregate: window.puffinLens.query("find", { aggregate: true, by: "name" }),
  }));
  assert.deepEqual(got.summary, expected.summary);
  assert.equal(got.dump + "", expected.dump, "dumpJson() is byte-identical to `puffin-lens dump`");
  assert.deepEqual(got.top, expected.top);
  assert.deepEqual(got.aggregate, expected.aggregate);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "overview.png") });
});

/** The CLI's merged tree as the tree view lists its rows (depth-first). */
function treeRows(tree) {
  const rows = [];
  const walk = (node, depth) => {
    rows.push({ depth, name: node.name, count: node.count, total_ns: node.total_ns, self_ns: node.self_ns });
    node.children.forEach((c) => walk(c, depth + 1));
  };
  for (const t of tree.threads) {
    rows.push({ depth: 0, thread: t.name });
    t.roots.forEach((r) => walk(r, 1));
  }
  return rows.slice(0, 500);
}

const ui = (p) => p.evaluate(() => window.puffinLens.ui());
const show = (p, view, options) => p.evaluate(({ view, options }) => window.puffinLens.show(view, options), { view, options });

await test("the tree, table and details views show what the CLI answers", async () => {
  // Merged tree, every node expanded: the `tree` query's rows in its order.
  let got = await show(page, "tree", { mode: "merged", expand: "all" });
  assert.equal(got.view, "tree");
  assert.deepEqual(got.rows, treeRows(expected.tree));
  assert.deepEqual(await ui(page), got, "ui() reads what show() answered");
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "tree_merged.png") });

  // Frame mode on the slowest frame: every instance of it, in time order.
  const fi = expected.slowestFrame.frame_index;
  got = await show(page, "tree", { mode: "frame", frame: fi, expand: "all", gap_ms: 0.5 });
  assert.equal(got.tree_mode, "frame");
  assert.equal(got.tree_frame, fi);
  const instances = got.rows.filter((r) => r.name !== undefined);
  assert.equal(instances.length, expected.slowestFrame.num_scopes);
  assert.ok(got.rows.some((r) => r.gap === true), "gap rows of at least 0.5 ms");
  for (const g of got.rows.filter((r) => r.gap)) assert.ok(g.duration_ns >= 500_000, JSON.stringify(g));
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "tree_frame.png") });

  // The table by name, all frames: `find --aggregate --by name`'s rows and order.
  got = await show(page, "table", { by: "name", sort: "total", frame: null });
  assert.equal(got.view, "table");
  assert.equal(got.frame, null);
  const pick = (r) => ({ name: r.name, count: r.count, total_ns: r.total_ns, self_ns: r.self_ns, min_ns: r.min_ns, max_ns: r.max_ns });
  assert.deepEqual(got.rows.map(pick), expected.aggregateAll.map(pick));
  got = await show(page, "table", { sort: "name" });
  assert.deepEqual(
    got.rows.map((r) => r.name),
    expected.aggregateAll.map((r) => r.name).sort(),
  );
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "table.png") });

  // Details: the callers query and the calls summary.
  got = await page.evaluate(() => window.puffinLens.select("frame_body"));
  assert.equal(got.selected_scope, "frame_body");
  const d = got.details;
  assert.deepEqual(d.callers, expected.callers.callers);
  assert.deepEqual(d.callees, expected.callers.callees);
  assert.equal(d.count, expected.callers.count);
  assert.equal(d.total_ns, expected.callers.total_ns);
  assert.equal(d.self_ns, expected.callers.self_ns);
  assert.equal(d.p95_ns, expected.calls.summary.p95_ns);
  assert.equal(d.max_share, expected.calls.summary.max_share);
  assert.equal(d.histogram.reduce((n, b) => n + b.count, 0), expected.calls.summary.count);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "details.png") });

  // Bad requests are refused with the reason.
  const msg = await page.evaluate(() => window.puffinLens.show("sunburst").then(() => "resolved", (e) => e.message));
  assert.match(msg, /^show\(view\): view must be "findings", "overview", "tree", "table", "timeline", "flame" or "diff", not "sunburst"$/);
});

await test("the flame graph lays out the CLI's merged tree, focuses on a node, and is in the hash", async () => {
  // Every node of `tree`, width = total / the threads' total, threads at depth 0.
  let got = await show(page, "flame", { frame: null, thread: null, focus: null, order: "heavy" });
  assert.equal(got.view, "flame");
  const totals = new Map();
  const walk = (node, path) => {
    const p = [...path, node.name];
    totals.set(JSON.stringify(p), node.total_ns);
    for (const c of node.children) walk(c, p);
  };
  for (const th of expected.tree.threads) {
    totals.set(JSON.stringify([th.name]), th.total_ns);
    for (const r of th.roots) walk(r, [th.name]);
  }
  const all = expected.tree.threads.reduce((s, t) => s + t.total_ns, 0);
  assert.equal(got.total_ns, all);
  assert.ok(got.nodes.length > 0 && got.nodes.length <= totals.size, `${got.nodes.length} of ${totals.size}`);
  for (const n of got.nodes) {
    const key = JSON.stringify(n.path);
    assert.equal(n.total_ns, totals.get(key), key);
    assert.ok(Math.abs((n.x1 - n.x0) * all - n.total_ns) <= 1 + all * 1e-9, key);
    // Every node at least a pixel wide is laid out (the page is 1400 px wide).
  }
  const wide = [...totals.values()].filter((t) => t / all >= 2 / 1400).length;
  assert.ok(got.nodes.length >= wide, `${got.nodes.length} nodes, ${wide} at least 2 px wide`);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "flame.png") });
  // Focus the heaviest root's first child: it becomes the full width.
  const child = got.nodes.find((n) => n.depth === 1);
  got = await show(page, "flame", { focus: child.path });
  assert.deepEqual(got.focus, child.path);
  assert.deepEqual([got.nodes[0].x0, got.nodes[0].x1], [0, 1]);
  assert.equal(got.nodes[0].total_ns, child.total_ns);
  assert.match(await page.evaluate(() => location.hash), /view=flame.*focus=/);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "flame_focus.png") });
  await show(page, "flame", { focus: null });
  // The whole recording on the timeline: merged columns keep their colours.
  await show(page, "timeline", { all: true });
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "timeline_all.png") });
  // The CLI's SVG (inferno) opens in Chromium: a frame per stack prefix, no foreign request.
  const svgFile = join(work, "flame.svg");
  cli(["flamegraph", SAMPLE, "-o", svgFile], { cwd: SAMPLES });
  const prefixes = new Set();
  for (const line of cli(["flamegraph", SAMPLE, "--folded"], { cwd: SAMPLES }).trim().split("\n")) {
    const parts = line.slice(0, line.lastIndexOf(" ")).split(";");
    for (let k = 1; k <= parts.length; k++) prefixes.add(parts.slice(0, k).join(";"));
  }
  const sctx = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  const sp = await sctx.newPage();
  const asked = [];
  sp.on("request", (r) => asked.push(r.url()));
  await sp.goto(`file://${svgFile}`);
  const frames = await sp.evaluate(() => document.querySelectorAll("#frames > g").length);
  assert.equal(frames, prefixes.size + 1, "a frame per stack prefix, and all");
  assert.deepEqual(asked, [`file://${svgFile}`]);
  await sctx.close();
});

await test("transforms: the tree and the flame graph through a stack equal the CLI's, in the hash; a bad one throws", async () => {
  const stack = ["merge:job", "focus-function:threads_demo::*"];
  const want = JSON.parse(cli(["tree", SAMPLE, "--merge", "job", "--focus-function", "threads_demo::*", "--json"], { cwd: SAMPLES }));
  assert.deepEqual(want.transforms, stack);
  let got = await page.evaluate((l) => window.puffinLens.setTransforms(l), stack);
  assert.deepEqual(got.transforms, stack);
  assert.deepEqual(await page.evaluate(() => window.puffinLens.transforms()), stack);
  got = await show(page, "tree", { mode: "merged", expand: "all", frame: null });
  assert.deepEqual(got.rows, treeRows(want));
  assert.match(await page.evaluate(() => location.hash), /tf=merge:job%1Ffocus-function:threads_demo::%2A/);
  // The flame graph: every node is the CLI's, with its total.
  got = await show(page, "flame", { frame: null, thread: null, focus: null });
  const totals = new Map();
  const walk = (node, path) => {
    const p = [...path, node.name];
    totals.set(JSON.stringify(p), node.total_ns);
    for (const c of node.children) walk(c, p);
  };
  for (const th of want.threads) {
    totals.set(JSON.stringify([th.name]), th.total_ns);
    for (const r of th.roots) walk(r, [th.name]);
  }
  assert.equal(got.nodes.length, totals.size);
  for (const n of got.nodes) assert.equal(n.total_ns, totals.get(JSON.stringify(n.path)), JSON.stringify(n.path));
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "transforms_flame.png") });
  // query() takes a stack of its own.
  const q = await page.evaluate((l) => window.puffinLens.query("tree", { transforms: l }), stack);
  assert.deepEqual(q, want);
  // A bad transform throws at once, naming it; the stack shown stays.
  const msg = await page.evaluate(() => {
    try {
      window.puffinLens.setTransforms(["merge:[oops"]);
      return "no error";
    } catch (e) {
      return e.message;
    }
  });
  assert.match(msg, /setTransforms: glob "\[oops" has an unclosed \[/);
  assert.deepEqual(await page.evaluate(() => window.puffinLens.transforms()), stack);
  got = await page.evaluate(() => window.puffinLens.setTransforms([]));
  assert.deepEqual(got.transforms, []);
  await show(page, "overview", {});
});


await test("the timeline shows a frame's lanes and bars", async () => {
  const fi = expected.slowestFrame.frame_index;
  await show(page, "timeline", { frame: fi });
  // The answer reads the last paint: wait for the paint of that frame.
  await page.waitForFunction(() => (window.puffinLens.ui()?.lanes || []).some((l) => l.bars > 0), null, { timeout: 10_000 });
  const got = await ui(page);
  assert.equal(got.view, "timeline");
  assert.equal(got.frame, fi);
  // The range is the frame's (JS numbers round epoch nanoseconds: a few hundred ns).
  assert.ok(Math.abs(got.range_ns[1] - got.range_ns[0] - expected.slowestFrame.duration_ns) < 2000, JSON.stringify(got.range_ns));
  // One lane per thread: the tree's thread names, same-named ones (unnamed workers) each in a lane.
  const threads = expected.tree.threads.map((t) => t.name);
  assert.deepEqual([...new Set(got.lanes.map((l) => l.thread))], threads);
  assert.equal(got.lanes.length, expected.summary.threads);
  assert.ok(got.lanes.every((l) => l.bars > 0), JSON.stringify(got.lanes));
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "timeline.png") });
  const msg = await page.evaluate(() => window.puffinLens.show("timeline", { range_ns: [5, 1] }).then(() => "resolved", (e) => e.message));
  assert.equal(msg, "show: bad range_ns: [5,1]");
});

await test("zoomed out on 1,000 frames, the timeline's lanes show their bars' colours, not frame lines (canvas pixels)", async () => {
  const p = await openApp(context, `${server.base}?url=../recordings/spaced.puffin`);
  await waitLoaded(p, "spaced.puffin");
  await show(p, "timeline", { all: true });
  await p.waitForFunction(() => (window.puffinLens.ui()?.lanes || []).some((l) => l.bars > 0), null, { timeout: 30_000 });
  const got = await ui(p);
  const [left, right] = got.x;
  // Fewer boundary lines than one per 8 points of the range's width.
  assert.ok(got.frame_lines > 10 && got.frame_lines <= (right - left) / 8 + 1, `${got.frame_lines} lines over ${right - left} points`);
  await p.waitForTimeout(300);
  // A lane's rows as the screen shows them, read back in the page: per
  // row, the share of coloured pixels (a bar's hue) and of grey ones (a
  // line: no hue, not the background, the clip's most common colour). In
  // either theme (headless Chromium prefers the light one).
  const shares = async (thread) => {
    const lane = got.lanes.find((l) => l.thread === thread);
    const clip = { x: left, y: lane.top + got.header, width: right - left, height: got.row * lane.depth };
    const png = (await p.screenshot({ clip })).toString("base64");
    return p.evaluate(async ({ png, row }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${png}`;
      await img.decode();
      const c = new OffscreenCanvas(img.width, img.height);
      const g = c.getContext("2d");
      g.drawImage(img, 0, 0);
      const { data, width, height } = g.getImageData(0, 0, img.width, img.height);
      const counts = new Map();
      for (let i = 0; i < data.length; i += 4) {
        const k = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
        counts.set(k, (counts.get(k) || 0) + 1);
      }
      const bg = [...counts].sort((a, b) => b[1] - a[1])[0][0];
      const [bR, bG, bB] = [bg >> 16, (bg >> 8) & 255, bg & 255];
      const out = [];
      // (The page's scale is 1: a point is a pixel.)
      for (let r = 0; r < Math.round(height / row); r++) {
        let coloured = 0, grey = 0, n = 0;
        // The row's middle band (bars have a pixel of spacing around them).
        for (let y = Math.floor((r + 0.3) * row); y < Math.floor((r + 0.7) * row); y++) {
          for (let x = 0; x < width; x++) {
            const i = 4 * (y * width + x);
            const [R, G, B] = [data[i], data[i + 1], data[i + 2]];
            const spread = Math.max(R, G, B) - Math.min(R, G, B);
            n++;
            // (Bars have a hue, even blended with the background at their
            // edges; a frame line has none.)
            if (spread >= 8) coloured++;
            else if (Math.abs(R - bR) + Math.abs(G - bG) + Math.abs(B - bB) > 12) grey++;
          }
        }
        out.push({ coloured: +(coloured / n).toFixed(3), grey: +(grey / n).toFixed(3) });
      }
      return out;
    }, { png, row: got.row });
  };
  await p.screenshot({ path: join(OUT, "timeline_1000_frames.png") });
  // main: a 9 ms bar every 10 ms (and two children), so merged columns of
  // the bars' colours almost all along; worker: a bar every 100 frames, its
  // lane mostly empty, where a line per frame would be a grey curtain.
  const main = await shares("main");
  const worker = await shares("worker");
  console.log(`     main lane rows ${JSON.stringify(main)}, worker lane ${JSON.stringify(worker)}, ${got.frame_lines} frame lines`);
  assert.equal(main.length, 2);
  assert.ok(main[0].coloured > 0.9 && main[0].grey < 0.1, JSON.stringify(main));
  assert.ok(main[1].coloured > 0.5 && main[1].grey < 0.15, JSON.stringify(main));
  // Lines at least 8 points apart cover at most 1 column in 8 (2 with
  // anti-aliasing); a line per frame (1.4 points apart) about 70%.
  assert.ok(worker[0].grey < 0.25 && worker[0].coloured > 0, JSON.stringify(worker));
  await p.close();
});

await test("the location hash follows the views; back/forward and a reload return there", async () => {
  await show(page, "tree", { mode: "merged" });
  await page.waitForFunction(() => location.hash.startsWith("#view=tree"), null, { timeout: 10_000 });
  await show(page, "table", { sort: "count", frame: null });
  await page.waitForFunction(() => location.hash.includes("sort=count"), null, { timeout: 10_000 });
  const hash = await page.evaluate(() => location.hash);
  assert.equal(hash, "#view=table&frame=all&scope=frame_body&sort=count&desc=1&by=name");
  // Back: the tree again.
  await page.goBack();
  await page.waitForFunction(() => window.puffinLens.ui()?.view === "tree", null, { timeout: 10_000 });
  await page.goForward();
  await page.waitForFunction(() => window.puffinLens.ui()?.view === "table", null, { timeout: 10_000 });
  // A reload with the same recording open lands on the same view.
  const p = await openApp(context, `${server.base}?url=../recordings/${SAMPLE}${hash}`);
  await waitLoaded(p, SAMPLE);
  await p.waitForFunction(() => window.puffinLens.ui() !== null, null, { timeout: 10_000 });
  const got = await ui(p);
  assert.equal(got.view, "table");
  assert.equal(got.selected_scope, "frame_body");
  assert.equal(got.table.sort, "count");
  assert.equal(got.rows[0].name, [...expected.aggregateAll].sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1))[0].name);
  await p.close();
  await show(page, "overview", {});
});

await test("Export JSON and Export CSV download the export and the frames list", async () => {
  const [json] = await Promise.all([page.waitForEvent("download"), page.evaluate(() => window.puffinLens.download("json"))]);
  assert.equal(json.suggestedFilename(), `${SAMPLE}.json`);
  assert.equal(read(await json.path()).toString("utf8"), expected.dump);
  const [csv] = await Promise.all([page.waitForEvent("download"), page.evaluate(() => window.puffinLens.download("csv"))]);
  assert.equal(csv.suggestedFilename(), `${SAMPLE}.frames.csv`);
  const lines = read(await csv.path()).toString("utf8").trim().split("\n");
  assert.equal(lines[0], "position,frame_index,start_ns,end_ns,duration_ns,num_scopes");
  // Frames from the dump's text (JSON.parse would round epoch nanoseconds).
  const re = /"frame_index":(\d+),"range_ns":\[(-?\d+),(-?\d+)\],"duration_ns":(\d+),"num_scopes":(\d+)/g;
  const frames = [...expected.dump.matchAll(re)];
  assert.equal(frames.length, expected.summary.frames);
  assert.equal(lines.length, frames.length + 1);
  frames.forEach((m, i) => assert.equal(lines[i + 1], [i, m[1], m[2], m[3], m[4], m[5]].join(",")));
});

await test("Export Parquet downloads the three tables, equal to `puffin-lens export`'s (read by DuckDB)", async () => {
  const [zip] = await Promise.all([page.waitForEvent("download"), page.evaluate(() => window.puffinLens.download("parquet"))]);
  assert.equal(zip.suggestedFilename(), `${SAMPLE}.parquet.zip`);
  const dir = join(work, "parquet");
  cli(["export", SAMPLE, "-o", join(dir, "cli")], { cwd: SAMPLES });
  // Unzip with Python; compare every table with DuckDB (the browser writes
  // LZ4_RAW pages, the CLI zstd: the rows must be the same).
  const check = `
import duckdb, sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2] + "/web")
con = duckdb.connect()
for t in ["scopes", "frames", "scope_defs"]:
    web, cli = (f"read_parquet('{sys.argv[2]}/{side}/{t}/*.parquet')" for side in ("web", "cli"))
    n = con.execute(f"SELECT count(*) FROM {web}").fetchone()[0]
    diff = con.execute(f"SELECT count(*) FROM ((SELECT * FROM {web} EXCEPT ALL SELECT * FROM {cli}) UNION ALL (SELECT * FROM {cli} EXCEPT ALL SELECT * FROM {web}))").fetchone()[0]
    assert n > 0 and diff == 0, (t, n, diff)
    print(t, n)
`;
  const out = execFileSync("python3", ["-c", check, await zip.path(), dir]).toString();
  assert.match(out, new RegExp(`scopes ${expected.summary.scopes}\\n`));
  assert.match(out, new RegExp(`frames ${expected.summary.frames}\\n`));
});

await test("the HTML report renders in Chromium with its charts and asks for nothing; the app's Report download is the CLI's", async () => {
  const dir = join(work, "report");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "report.html");
  cli(["report", SAMPLE, "-o", file], { cwd: SAMPLES });
  // A context of its own: nothing but the report's page.
  const rctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const p = await rctx.newPage();
  const asked = [];
  p.on("request", (r) => asked.push(r.url()));
  const errors = [];
  p.on("pageerror", (e) => errors.push(e.message));
  await p.goto(`file://${file}`);
  const seen = await p.evaluate(() => ({
    title: document.title,
    h2: [...document.querySelectorAll("h2")].map((h) => h.textContent),
    tables: document.querySelectorAll("table").length,
    charts: [...document.querySelectorAll("svg.chart")].map((s) => [s.getAttribute("class"), s.getBoundingClientRect().height > 0, s.querySelectorAll("rect").length]),
  }));
  assert.equal(seen.title, `puffin-lens report: ${SAMPLE}`);
  assert.deepEqual(seen.h2, ["Summary"]);
  assert.ok(seen.tables >= 5, JSON.stringify(seen));
  // The sample's gaps recur (the recurring gaps chart); each outlier (a
  // call, a burst or a heavy tail, as the CLI's JSON lists them) has its
  // calls' chart.
  const outliers = JSON.parse(cli(["report", SAMPLE, "--format", "json"], { cwd: SAMPLES })).recordings[0].outliers;
  assert.ok(outliers.length > 0);
  assert.deepEqual(seen.charts.map((c) => c[0]), ["chart frames", "chart gaps", ...outliers.map(() => "chart calls")]);
  assert.ok(seen.charts.every((c) => c[1] && c[2] > 0), JSON.stringify(seen.charts));
  assert.equal(seen.charts[0][2], expected.summary.frames);
  assert.deepEqual(asked, [`file://${file}`]);
  assert.deepEqual(errors, []);
  await p.screenshot({ path: join(OUT, "report.png"), fullPage: true });
  await rctx.close();
  // The app's Export > Report (HTML): the same page as the CLI's.
  const [dl] = await Promise.all([page.waitForEvent("download"), page.evaluate(() => window.puffinLens.download("report"))]);
  assert.equal(dl.suggestedFilename(), `${SAMPLE}.report.html`);
  assert.equal(read(await dl.path()).toString("utf8"), read(file).toString("utf8"));
});

await test("a hostile recording's report runs no script in Chromium, and shows each name as text", async () => {
  // tests/common/hostile.rs: names, data, thread names and paths with
  // <script>, event handlers, attribute break-outs, Markdown links; each
  // script would set window.__puffinLensPwned.
  const dir = join(work, "hostile");
  mkdirSync(dir, { recursive: true });
  const capture = example("capture");
  const [a, b] = [join(dir, "hostile_a.puffin"), join(dir, "hostile_b.puffin")];
  execFileSync(capture, ["hostile", a]);
  execFileSync(capture, ["hostile", b, "b"]);
  const file = join(dir, "report.html");
  cli(["report", a, b, "--top", "100", "-o", file], { cwd: dir });
  const rctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const p = await rctx.newPage();
  const asked = [];
  p.on("request", (r) => asked.push(r.url()));
  const dialogs = [];
  p.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
  await p.goto(`file://${file}`);
  // Give handlers their chance: hover and click every element, load images.
  const seen = await p.evaluate(async () => {
    for (const el of document.querySelectorAll("body *")) {
      for (const type of ["mouseover", "mouseenter", "click", "focus"]) el.dispatchEvent(new Event(type, { bubbles: true }));
    }
    await new Promise((r) => setTimeout(r, 500));
    const cells = [...document.querySelectorAll("td")].map((td) => td.textContent);
    return {
      canary: window.__puffinLensPwned,
      scripts: document.scripts.length,
      handlers: [...document.querySelectorAll("*")].flatMap((el) => [...el.attributes].map((a) => a.name)).filter((n) => n.startsWith("on")),
      links: document.querySelectorAll("a, img, iframe, object, embed").length,
      cellsWithScriptText: cells.filter((t) => t.includes("<script>window.__puffinLensPwned=1</script>")).length,
      threadShown: cells.some((t) => t.includes('main<b onmouseover="window.__puffinLensPwned=3">x</b>')),
    };
  });
  assert.equal(seen.canary, undefined, "an injected script ran");
  assert.deepEqual({ scripts: seen.scripts, handlers: seen.handlers, links: seen.links }, { scripts: 0, handlers: [], links: 0 });
  assert.ok(seen.cellsWithScriptText > 0, "the <script> name is shown as text");
  assert.ok(seen.threadShown, "the thread name is shown as text");
  assert.deepEqual(dialogs, []);
  assert.deepEqual(asked, [`file://${file}`], "the page asked for nothing (no <img src=x>)");
  await p.screenshot({ path: join(OUT, "report_hostile.png") });
  await rctx.close();
  // The app's Export ▸ Report of the same recordings is the same page.
  const hp = await openApp(context, server.base);
  await dropFile(hp, "hostile_a.puffin", read(a));
  await waitLoaded(hp, "hostile_a.puffin");
  const [dl] = await Promise.all([hp.waitForEvent("download"), hp.evaluate(() => window.puffinLens.download("report"))]);
  const single = join(dir, "single.html");
  cli(["report", "hostile_a.puffin", "-o", "single.html"], { cwd: dir });
  assert.equal(read(await dl.path()).toString("utf8"), read(single).toString("utf8"));
  assert.equal(await hp.evaluate(() => window.__puffinLensPwned), undefined);
  await hp.close();
});

await test("bad query arguments throw a readable error", async () => {
  const msg = await page.evaluate(() => {
    try {
      window.puffinLens.query("top", { limit: 3 });
      return "no error";
    } catch (e) {
      return e.message;
    }
  });
  assert.match(msg, /bad arguments for top: unknown field `limit`/);
});

await test("a damaged file opens as B with its intact frames and the problem listed", async () => {
  await dropFile(page, "cut.puffin", cutBytes);
  await waitLoaded(page, "cut.puffin", "b");
  const got = await page.evaluate(() => ({
    summary: window.puffinLens.summary("b"),
    dump: window.puffinLens.dumpJson("b"),
    status: window.puffinLens.status(),
  }));
  assert.deepEqual(got.summary, expected.cutSummary);
  assert.equal(got.summary.damaged, true);
  assert.equal(got.summary.frames, 11);
  assert.match(got.summary.diagnostics[0], /^damaged: frame #11 (\(frame_index \d+\) )?at byte \d+: /);
  assert.equal(got.dump, expected.cutDump);
  assert.equal(got.status.a, SAMPLE, "A is still open");
  assert.equal(got.status.shown, "b", "what was just opened is what is shown");
  await page.evaluate(() => window.puffinLens.status());
});

/** The CLI's diff tree as the diff view lists its rows, every node expanded. */
function diffRows(diff) {
  const rows = [];
  const walk = (n, depth) => {
    const a = n.a ? n.a.total_ns : 0;
    const b = n.b ? n.b.total_ns : 0;
    rows.push({
      depth,
      name: n.name,
      a_total_ns: a,
      b_total_ns: b,
      delta_total_ns: n.delta_total_ns,
      // Per frame of each side (the frame counts differ): the JSON's basis.
      a_total_per_frame_ns: n.a_total_per_frame_ns,
      b_total_per_frame_ns: n.b_total_per_frame_ns,
      delta_total_per_frame_ns: n.delta_total_per_frame_ns,
      delta_pct: n.delta_pct,
    });
    n.children.forEach((c) => walk(c, depth + 1));
  };
  for (const t of diff.threads) {
    rows.push({ depth: 0, thread: t.name });
    t.roots.forEach((r) => walk(r, 1));
  }
  return rows.slice(0, 500);
}

await test("a pair opens on its findings: the CLI report's sentences, each link opening its evidence, Back returning", async () => {
  // The pair (A the sample, B its cut copy) landed on the Findings page.
  await page.waitForFunction(() => {
    const u = window.puffinLens.ui();
    return u && u.view === "findings" && u.computing === false;
  }, null, { timeout: 120_000 });
  const got = await ui(page);
  const report = JSON.parse(
    cli(["report", SAMPLE, join(work, "cut.puffin"), "--format", "json"], { cwd: SAMPLES, status: 3 }),
  );
  const c = report.comparison;
  assert.deepEqual(got.look_first.map((x) => x.sentence), c.look_first, "the CLI binary's sentences");
  assert.equal(got.noise.model, c.noise.model);
  assert.deepEqual(got.conditions, c.conditions);
  assert.deepEqual(got.changes.map((r) => r.name), c.rows.map((r) => r.name));
  assert.deepEqual(got.runs, { a: [SAMPLE], b: ["cut.puffin"], paired: false });
  await page.screenshot({ path: join(OUT, "findings.png") });
  // A link opens the diff table on its scope with both sides' calls;
  // Back returns to the page.
  const link = got.changes.map((r) => r.link).concat(got.look_first.map((x) => x.link)).find(Boolean);
  if (link) {
    const before = await page.evaluate(() => location.hash);
    await page.evaluate((l) => { location.hash = l; }, link);
    await page.waitForFunction(() => window.puffinLens.ui().view === "diff", null, { timeout: 30_000 });
    const d = await ui(page);
    assert.equal(encodeURIComponent(d.details.name).replaceAll("%3A", ":"), link.split("scope=")[1]);
    await page.goBack();
    await page.waitForFunction(() => window.puffinLens.ui().view === "findings", null, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => location.hash), before);
    // The diff view keeps that scope's details; the next test starts without.
    await page.evaluate(() => { location.hash = "view=diff&mode=table"; });
    await page.waitForFunction(() => window.puffinLens.ui().view === "diff" && !window.puffinLens.ui().details, null, { timeout: 30_000 });
  }
  // show("findings") answers with the page.
  const shown = await show(page, "findings");
  assert.equal(shown.view, "findings");
});

await test("the diff view shows what the CLI's compare and diff answer", async () => {
  // A is the sample, B its cut copy (one frame fewer).
  let got = await show(page, "diff", { mode: "tree", normalize: "total", expand: "all" });
  assert.equal(got.view, "diff");
  assert.equal(got.mode, "tree");
  assert.deepEqual(got.warnings, expected.diffTree.warnings);
  assert.deepEqual(got.rows, diffRows(expected.diffTree));
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "diff_tree.png") });
  // Different frame counts: per frame is the default choice, and visible.
  const perFrame = await show(page, "diff", { normalize: "per-frame" });
  assert.equal(perFrame.normalize, "per-frame");
  got = await show(page, "diff", { mode: "table", sort: "delta", normalize: "total", filter: "", hide_below: 0 });
  const key = (r) => `${r.name}\u0000${r.data}`;
  const byKey = (rows) => [...rows].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
  // The table's rows are compare's, plus each side's total per unit (its
  // frames: the sides' counts differ), checked against compare's totals.
  // (and the table's own marks: a wrapper's badge, a rename's one row).
  const perUnit = ["a_total_per_frame_ns", "b_total_per_frame_ns", "delta_total_per_frame_ns", "delta_pct", "wrapper", "spark_points"];
  const strip = (r) => Object.fromEntries(Object.entries(r).filter(([k]) => !perUnit.includes(k)));
  assert.deepEqual(byKey(got.rows.map(strip)), byKey(expected.compareAll.rows));
  const [ua, ub] = got.units;
  assert.ok(ua > 0 && ub > 0 && ua !== ub, `units ${got.units}`);
  const near = (x, y) => Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(y));
  for (const r of got.rows) {
    const a = r.a ? r.a.total_ns / ua : 0;
    const b = r.b ? r.b.total_ns / ub : 0;
    assert.ok(near(r.a_total_per_frame_ns, a) && near(r.b_total_per_frame_ns, b), JSON.stringify(r));
    assert.ok(near(r.delta_total_per_frame_ns, b - a), JSON.stringify(r));
  }
  for (let i = 1; i < got.rows.length; i++) {
    assert.ok(got.rows[i - 1].delta_total_ns >= got.rows[i].delta_total_ns, "slower first");
  }
  assert.equal(await page.evaluate(() => location.hash), "#view=diff&mode=table&sort=delta&desc=1&normalize=total");
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "diff_table.png") });
  // The differential flame graph: widths from B, Δ per node as the CLI's `diff`.
  got = await show(page, "diff", { mode: "flame", width: "b", normalize: "total", focus: null });
  assert.equal(got.mode, "flame");
  const deltas = new Map();
  const walkDiff = (node, path) => {
    const p = [...path, node.name];
    deltas.set(JSON.stringify(p), node.delta_total_ns);
    for (const c of node.children) walkDiff(c, p);
  };
  for (const th of expected.diffTree.threads) for (const r of th.roots) walkDiff(r, [th.name]);
  const scopeNodes = got.nodes.filter((n) => n.depth > 0);
  assert.ok(scopeNodes.length > 0);
  for (const n of scopeNodes) assert.equal(n.delta_total_ns, deltas.get(JSON.stringify(n.path)), JSON.stringify(n.path));
  assert.match(await page.evaluate(() => location.hash), /mode=flame.*width=b/);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "diff_flame.png") });
  await show(page, "diff", { mode: "table" });
  await show(page, "overview", {});
});

await test("a broken file shows one error line and the page keeps working", async () => {
  await dropFile(page, "junk.puffin", Buffer.from("this is not a recording"));
  await page.waitForFunction(() => window.puffinLens.status().error, null, { timeout: 30_000 });
  const status = await page.evaluate(() => window.puffinLens.status());
  assert.match(
    status.error,
    /^junk\.puffin: not a \.puffin recording or JSON dump: it starts with "this", expected "PUF0" or a JSON object$/,
  );
  await page.screenshot({ path: join(OUT, "error.png") });
  // Still working: queries answer, and a new load through the API succeeds.
  const top = await page.evaluate(() => window.puffinLens.query("top", { top: 5 }, "a"));
  assert.deepEqual(top, expected.top);
  const summary = await page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return window.puffinLens.load(bytes, "again.puffin", "a");
  }, sampleBytes.toString("base64"));
  assert.equal(summary.file, "again.puffin");
  assert.equal(summary.scopes, expected.summary.scopes);
  assert.equal(await page.evaluate(() => window.puffinLens.status().error), null);
  const rejected = await page.evaluate(() =>
    window.puffinLens.load(new Uint8Array([1, 2, 3]), "tiny.bin", "b").then(
      () => "resolved",
      (e) => e.message,
    ),
  );
  assert.match(rejected, /^tiny\.bin: not a \.puffin recording/);
  // A File (what the installed app's launch handler passes): read in chunks,
  // named after the File when no name is given.
  const fromFile = await page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return window.puffinLens.load(new File([bytes], "from_file.puffin"), undefined, "a");
  }, sampleBytes.toString("base64"));
  assert.equal(fromFile.file, "from_file.puffin");
  assert.equal(fromFile.scopes, expected.summary.scopes);
  assert.deepEqual(await page.evaluate(() => window.puffinLens.query("top", { top: 5 }, "a")), expected.top);
  const notBytes = await page.evaluate(() => {
    try {
      window.puffinLens.load(42, "x.puffin");
      return "accepted";
    } catch (e) {
      return e.message;
    }
  });
  assert.equal(notBytes, "load(bytes, name): bytes must be a Uint8Array, an ArrayBuffer or a File (Blob)");
});

await test("a dropped JSON dump loads a frame at a time and answers like the CLI", async () => {
  writeFileSync(join(work, "dump.json"), expected.dump);
  const want = {
    summary: JSON.parse(cli(["summary", "dump.json", "--json"], { cwd: work })),
    dump: cli(["dump", "dump.json"], { cwd: work }),
  };
  await page.evaluate(() => (window.__progressSeen = []));
  await dropFile(page, "dump.json", Buffer.from(expected.dump));
  // A is open: a dropped file opens as B.
  await waitLoaded(page, "dump.json", "b");
  const got = await page.evaluate(() => ({ summary: window.puffinLens.summary("b"), dump: window.puffinLens.dumpJson("b") }));
  assert.deepEqual(got.summary, want.summary);
  assert.equal(got.dump, want.dump);
  assert.ok((await progressShown(page)).seen.some((t) => t.startsWith("Decoding dump.json:")));
  await dropFile(page, "bad.json", Buffer.from('{"frames": [ {"frame_index": } ]}'));
  await page.waitForFunction(() => window.puffinLens.status().error, null, { timeout: 30_000 });
  const error = await page.evaluate(() => window.puffinLens.status().error);
  assert.equal(error, "bad.json: invalid JSON dump: expected value at line 1 column 30 (byte 29)");
});

await test("?url= loads a recording from the same server", async () => {
  const p = await openApp(context, `${server.base}?url=../recordings/${SAMPLE}`);
  await waitLoaded(p, SAMPLE);
  const got = await p.evaluate(() => ({ summary: window.puffinLens.summary(), dump: window.puffinLens.dumpJson(), by: window.puffinLens.status().decoded_by }));
  assert.deepEqual(got.summary, expected.summary);
  assert.equal(got.dump, expected.dump);
  // Small, and there before the decode workers (they start once the first
  // frame is on screen): decoded on the page's thread rather than waiting.
  assert.deepEqual(got.by, { a: "page", b: null }, "a small file given at the start is decoded on the page");
  // The download started with the page, before the app ran. (The frame
  // that shows it may still be on its way to the screen: its paint first.)
  await p.waitForFunction(() => window.puffinLens.status().timings.some((t) => t.name === "first-paint"), null, { timeout: 10_000 });
  const order = await p.evaluate(() => window.puffinLens.status().timings.map((t) => t.name));
  assert.ok(order.includes(`fetched ${SAMPLE}`) && order.indexOf(`fetched ${SAMPLE}`) < order.indexOf(`load-start ${SAMPLE}`), JSON.stringify(order));
  // Its first view drawn after it was decoded; the browser's first paint listed.
  assert.ok(order.indexOf(`decoded ${SAMPLE}`) < order.indexOf(`shown ${SAMPLE}`) && order.includes("first-paint"), JSON.stringify(order));
  const progress = await progressShown(p);
  const size = (sampleBytes.length / 1e6).toFixed(1);
  assert.ok(progress.seen.includes(`Downloading ${SAMPLE}: ${size} of ${size} MB`), `download progress: ${JSON.stringify(progress.seen)}`);
  // Small and there before the first frame (as it mostly is): decoded
  // within it, in one go (no decoding bar), which shows it.
  if (order.indexOf(`fetched ${SAMPLE}`) < order.indexOf("first-frame")) {
    assert.ok(p.logs.some((l) => l.includes(`${SAMPLE}: decoded in`) && l.includes(" in 1 slices")), p.logs.join("\n"));
    assert.ok(!progress.seen.some((t) => t.startsWith(`Decoding ${SAMPLE}:`)), `decoding progress: ${JSON.stringify(progress.seen)} ${JSON.stringify(order)}`);
  }
  assert.ok(progress.hiddenNow, "progress bar hidden once loaded");
  const marks = (await p.evaluate(() => window.puffinLens.status().timings)).map((t) => t.name);
  const [started, decoded] = [marks.indexOf(`load-start ${SAMPLE}`), marks.indexOf(`decoded ${SAMPLE}`)];
  assert.ok(started >= 0 && decoded > started, JSON.stringify(marks));
  const missing = await openApp(context, `${server.base}?url=../recordings/missing.puffin`);
  await missing.waitForFunction(() => window.puffinLens.status().error, null, { timeout: 30_000 });
  const err = await missing.evaluate(() => window.puffinLens.status().error);
  assert.match(err, /missing\.puffin: cannot download: HTTP 404/);
  assert.ok((await progressShown(missing)).hiddenNow, "no progress bar left after a failed download");
  await p.close();
  await missing.close();
});

await test("?url=A&b=B opens both and lands on their findings at a glance; a fetch that fails says why", async () => {
  const p = await openApp(context, `${server.base}?url=../recordings/${SAMPLE}&b=../recordings/cut.puffin`);
  await waitLoaded(p, "cut.puffin", "b");
  await waitLoaded(p, SAMPLE, "a");
  await p.waitForFunction(() => window.puffinLens.ui()?.view === "findings" && window.puffinLens.ui().computing === false, null, {
    timeout: 120_000,
  });
  const ui = await p.evaluate(() => window.puffinLens.ui());
  assert.equal(ui.shown, "a");
  // The glance is the CLI's: its headline and its waterfall's parts.
  const report = JSON.parse(
    cli(["report", SAMPLE, join(work, "cut.puffin"), "--format", "json"], { cwd: SAMPLES, status: 3 }),
  );
  assert.equal(ui.glance.headline, report.comparison.glance.headline);
  assert.deepEqual(ui.glance.bars.map((b) => b.part), report.comparison.glance.bars.map((b) => b.part));
  // The diff table is one key away; its table is built a slice per frame.
  const diff = await show(p, "diff", { mode: "table" });
  assert.equal(diff.view, "diff");
  await p.waitForFunction(() => window.puffinLens.ui()?.view === "diff" && window.puffinLens.ui().building === null, null, {
    timeout: 30_000,
  });
  assert.ok((await p.evaluate(() => window.puffinLens.ui())).rows.length > 0);
  await p.close();
  // Nothing listens there (as for a cross-origin file without CORS headers).
  unreachableUrl = `http://127.0.0.1:${await freePort()}/x.puffin`;
  const bad = await openApp(context, `${server.base}?url=${unreachableUrl}`);
  await bad.waitForFunction(() => window.puffinLens.status().error, null, { timeout: 30_000 });
  const err = await bad.evaluate(() => window.puffinLens.status().error);
  assert.match(err, /x\.puffin: cannot download \(.*\): the server is unreachable, or it does not allow this page to read the file .*Access-Control-Allow-Origin/);
  assert.ok(!err.includes("\n"));
  await bad.close();
});

await test("repeated ?url= and &b= open several runs a side, judged between runs as the CLI judges them", async () => {
  const r = (n) => `../recordings/${n}`;
  const p = await openApp(context, `${server.base}?url=${r(SAMPLE)}&url=${r(SAMPLE)}&b=${r("cut.puffin")}&b=${r("cut.puffin")}`);
  await p.waitForFunction(() => {
    const u = window.puffinLens.ui();
    return u && u.view === "findings" && u.computing === false && u.runs.a.length === 2 && u.runs.b.length === 2;
  }, null, { timeout: 120_000 });
  const got = await p.evaluate(() => window.puffinLens.ui());
  assert.deepEqual(got.runs, { a: [SAMPLE, SAMPLE], b: ["cut.puffin", "cut.puffin"], paired: false });
  assert.equal(got.noise.model, "between-runs");
  assert.deepEqual(got.noise.runs, [2, 2]);
  const cut = join(work, "cut.puffin");
  const report = JSON.parse(cli(["report", SAMPLE, SAMPLE, "--vs", cut, cut, "--format", "json"], { cwd: SAMPLES, status: 3 }));
  assert.deepEqual(got.look_first.map((x) => x.sentence), report.comparison.look_first);
  assert.equal(got.fallback, null, "made by a worker");
  // A file dropped onto B's name in the top bar is one more run of B.
  const chip = got.chips.b;
  assert.ok(chip, JSON.stringify(got.chips));
  await dropFile(p, "cut.puffin", readFileSync(cut), [(chip[0] + chip[2]) / 2, (chip[1] + chip[3]) / 2]);
  await p.waitForFunction(() => {
    const u = window.puffinLens.ui();
    return u && u.view === "findings" && u.computing === false && u.runs.b.length === 3;
  }, null, { timeout: 120_000 });
  const three = await p.evaluate(() => window.puffinLens.ui());
  assert.deepEqual(three.runs, { a: [SAMPLE, SAMPLE], b: ["cut.puffin", "cut.puffin", "cut.puffin"], paired: false });
  assert.deepEqual(three.noise.runs, [2, 3]);
  await p.close();
});

await test("at 1280x800 with A and B open, the top bar is one row", async () => {
  const narrow = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const p = await openApp(narrow, `${server.base}?url=../recordings/${SAMPLE}&b=../recordings/cut.puffin`);
  await waitLoaded(p, "cut.puffin", "b");
  await waitLoaded(p, SAMPLE, "a");
  await p.waitForFunction(() => window.puffinLens.ui() && window.puffinLens.ui().view === "findings", null, { timeout: 30_000 });
  // Measured by the app's own layout (rows of controls), not in pixels.
  assert.equal(await p.evaluate(() => window.puffinLens.ui().top_bar_rows), 1);
  await p.screenshot({ path: join(OUT, "topbar_1280.png") });
  await narrow.close();
});

await test("installable: the manifest is served and complete, and a launch with file handles opens them", async () => {
  const base = new URL(server.base);
  const manifest = await (await fetch(new URL("manifest.webmanifest", base))).json();
  assert.equal(manifest.name, "puffin-lens");
  assert.equal(manifest.display, "standalone");
  assert.equal(manifest.start_url, "./");
  assert.equal(manifest.scope, "./");
  const sizes = manifest.icons.map((i) => i.sizes);
  for (const size of ["192x192", "512x512"]) assert.ok(sizes.includes(size), size);
  assert.ok(manifest.icons.some((i) => i.purpose === "maskable"));
  for (const icon of manifest.icons) {
    const r = await fetch(new URL(icon.src, base));
    assert.equal(r.status, 200, icon.src);
    assert.equal(r.headers.get("content-type"), "image/png", icon.src);
  }
  const handler = manifest.file_handlers[0];
  assert.deepEqual(handler.accept, { "application/x-puffin": [".puffin"], "application/json": [".json"] });
  // The page links it; a launch (the consumer the page registered, called
  // as the browser would with file handles) opens A and B.
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await ctx.addInitScript(() => {
    // Chromium has a launchQueue of its own: shadow it to catch the consumer.
    Object.defineProperty(window, "launchQueue", {
      value: { setConsumer: (f) => (window.__launchConsumer = f) },
      configurable: true,
    });
  });
  const p = await openApp(ctx, server.base);
  assert.equal(await p.evaluate(() => document.querySelector("link[rel=manifest]").getAttribute("href")), "manifest.webmanifest");
  // A file this small given before the decode workers are up is decoded on
  // the page's thread (sooner): the launch waits for them, as a user's would.
  await p.waitForFunction(() => window.puffinLens.status().workers_ready > 0, null, { timeout: 60_000 });
  await p.evaluate(
    async ({ a, b }) => {
      const handle = (name, b64) => ({
        kind: "file",
        name,
        getFile: async () => new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name),
      });
      await window.__launchConsumer({ files: [handle("launched.puffin", a), handle("second.puffin", b)] });
    },
    { a: sampleBytes.toString("base64"), b: sampleBytes.toString("base64") },
  );
  await waitLoaded(p, "launched.puffin", "a");
  await waitLoaded(p, "second.puffin", "b");
  assert.equal((await p.evaluate(() => window.puffinLens.summary("a"))).frames, expected.summary.frames);
  assert.deepEqual(await p.evaluate(() => window.puffinLens.status().decoded_by), { a: "workers", b: "workers" });
  await p.close();
  await ctx.close();
});

await test("works offline after the first visit (service worker)", async () => {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  // The first visit's page is not controlled yet; a reload is.
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
  const caches = await page.evaluate(async () => window.caches.keys());
  assert.equal(caches.length, 1);
  assert.match(caches[0], /^puffin-lens-[0-9a-f]{16}$/);
  server.stop();
  await new Promise((r) => setTimeout(r, 300));
  const offline = await openApp(context, server.base);
  // (Before the workers are up the page itself would decode a file this small.)
  await offline.waitForFunction(() => window.puffinLens.status().workers_ready > 0, null, { timeout: 60_000 });
  const summary = await offline.evaluate(
    async ({ b64, name }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      return window.puffinLens.load(bytes, name, "a");
    },
    { b64: sampleBytes.toString("base64"), name: SAMPLE },
  );
  assert.deepEqual(summary, expected.summary);
  // The decode workers' script and module came from the cache too.
  assert.equal(await offline.evaluate(() => window.puffinLens.status().decoded_by.a), "workers");
  await offline.screenshot({ path: join(OUT, "offline.png") });
  await server.restart();
});

await test("live: through `puffin-lens relay`, a running app's frames stream into the views (?live=)", async () => {
  // examples/live_demo.rs: puffin + puffin_http, about 60 frames a second.
  const demoBin = example("live_demo");
  const [appPort, relayPort] = [await freePort(), await freePort()];
  const startDemo = () => spawn(demoBin, [`127.0.0.1:${appPort}`], { stdio: ["ignore", "ignore", "inherit"] });
  let demo = startDemo();
  const relay = spawn(BIN, ["relay", `127.0.0.1:${appPort}`, "--listen", `127.0.0.1:${relayPort}`], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let relayLog = "";
  relay.stderr.on("data", (d) => (relayLog += d));
  const until = async (what, ok, ms = 30_000) => {
    for (const t0 = Date.now(); !(await ok()); await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}; relay said:\n${relayLog}`);
    }
  };
  try {
    await until("the relay", () => relayLog.includes("relaying"));
    assert.match(relayLog, /loopback only/);
    const p = await openApp(context, `${server.base}?live=ws://127.0.0.1:${relayPort}`);
    const live = () => p.evaluate(() => window.puffinLens.status());
    await until("frames in the views", async () => {
      const s = await live();
      return s.live && s.live.status === "connected" && s.live.shown_generation >= 20 && s.a === `live ws://127.0.0.1:${relayPort}`;
    });
    const summary = await p.evaluate(() => window.puffinLens.summary());
    assert.ok(summary.frames >= 20, JSON.stringify(summary));
    assert.ok(summary.has_registration, "scope names arrived with the first frame");
    const names = (await p.evaluate(() => window.puffinLens.query("find", { aggregate: true, by: "name", top: 100 }))).map((r) => r.name);
    for (const n of ["frame_body", "update", "physics", "render", "job"]) assert.ok(names.includes(n), `${n} in ${names}`);
    await p.screenshot({ path: join(OUT, "live.png") });
    // The app restarts: the relay reconnects to it, the page stays connected.
    demo.kill();
    await until("the relay to report the app gone", async () => (await live()).live.status === "reconnecting");
    const before = (await live()).live.received_frames;
    demo = startDemo();
    await until("frames from the restarted app", async () => {
      const s = (await live()).live;
      return s.status === "connected" && s.received_frames > before + 20;
    });
    assert.deepEqual(p.logs.filter((l) => l.startsWith("pageerror")), []);
    await p.close();
  } finally {
    demo.kill();
    relay.kill();
  }
});

await test("the exports open in speedscope (its own static build, offline) and match its schema", async () => {
  const release = join(ROOT, "web", "node_modules", "speedscope", "dist", "release");
  cpSync(release, join(server.root, "speedscope"), { recursive: true });
  const files = {
    speedscope: "threads_demo.speedscope.json",
    chrome: "threads_demo.trace.json",
    folded: "threads_demo.folded",
  };
  for (const [format, name] of Object.entries(files)) {
    writeFileSync(join(server.root, "recordings", name), cli(["export", SAMPLE, "-o", "-", "--format", format], { cwd: SAMPLES }));
  }
  // The speedscope file against the schema the package ships (required keys,
  // types and event kinds; the schema is draft-07 JSON Schema).
  const schema = JSON.parse(read(join(release, "file-format-schema.json")).toString("utf8"));
  const doc = JSON.parse(read(join(server.root, "recordings", files.speedscope)).toString("utf8"));
  const def = (name) => schema.definitions[name];
  for (const k of def("FileFormat.File").required) assert.ok(k in doc, `file: ${k}`);
  assert.equal(doc.$schema, def("FileFormat.File").properties.$schema.enum?.[0] ?? doc.$schema);
  for (const f of doc.shared.frames) for (const k of def("FileFormat.Frame").required) assert.ok(k in f, `frame: ${k}`);
  for (const p of doc.profiles) {
    for (const k of def("FileFormat.EventedProfile").required) assert.ok(k in p, `profile: ${k}`);
    assert.ok(["O", "C"].every((t) => JSON.stringify(schema).includes(`"${t}"`)));
    for (const e of p.events) assert.ok(Number.isInteger(e.frame) && e.frame < doc.shared.frames.length && typeof e.at === "number");
  }
  const threads = JSON.parse(cli(["threads", SAMPLE, "--json"], { cwd: SAMPLES })).map((t) => (t.name === "" ? "(unnamed)" : t.name));
  const sctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  for (const [format, name] of Object.entries(files)) {
    const p = await sctx.newPage();
    const errors = [];
    p.on("pageerror", (e) => errors.push(e.message));
    const asked = [];
    p.on("request", (r) => asked.push(r.url()));
    await p.goto(`${server.origin}/speedscope/index.html#profileURL=${encodeURIComponent(`${server.origin}/recordings/${name}`)}`);
    // Loaded: the flame chart's canvas and the profile's name in the toolbar.
    await p.waitForFunction(() => document.querySelectorAll("canvas").length > 0 && document.body.innerText.length > 0, null, { timeout: 30_000 });
    await p.waitForTimeout(1000);
    const text = await p.evaluate(() => document.body.innerText);
    assert.deepEqual(errors, [], `${format}: page errors`);
    assert.ok(!/error|could not|failed/i.test(text), `${format}: ${text.slice(0, 300)}`);
    if (format !== "folded") {
      // A profile per thread: speedscope names the shown one, "N/M" of them.
      assert.match(text, new RegExp(`1/${format === "speedscope" ? doc.profiles.length : "\\d+"}`), `${format}: ${text.slice(0, 300)}`);
      assert.ok(threads.some((t) => text.includes(t)), `${format}: a thread name in ${text.slice(0, 300)}`);
    }
    assert.ok(asked.every((u) => u.startsWith(server.origin)), `${format}: only this server: ${asked.filter((u) => !u.startsWith(server.origin))}`);
    await p.screenshot({ path: join(OUT, `speedscope_${format}.png`) });
    await p.close();
  }
  await sctx.close();
});

await test("decode workers: each recording decoded by the workers is the page thread's, export byte for byte; blocked workers fall back", async () => {
  // The export's SHA-256, taken in the page (a 600k-scope dump is large).
  const load = (p, name) =>
    p.evaluate(async (name) => {
      const bytes = new Uint8Array(await (await fetch(`../recordings/${name}`)).arrayBuffer());
      await window.puffinLens.load(bytes, name, "a").catch(() => null);
      const status = window.puffinLens.status();
      const dump = status.a === name ? window.puffinLens.dumpJson("a") : `error: ${status.error}`;
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(dump));
      return { by: status.decoded_by.a, sha: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""), length: dump.length };
    }, name);
  const ctx = await browser.newContext({ viewport: { width: 900, height: 600 } });
  const workers = await openApp(ctx, server.base);
  const page1 = await openApp(ctx, `${server.base}?workers=0`);
  // Where workers cannot start (a page that forbids them), loading falls back.
  const blockedCtx = await browser.newContext({ viewport: { width: 900, height: 600 } });
  await blockedCtx.addInitScript(() => {
    window.Worker = function () {
      throw new DOMException("workers are blocked here", "SecurityError");
    };
  });
  const blocked = await openApp(blockedCtx, server.base);
  // The pool starts after the app's first frame; until it is ready a small
  // file is decoded on the page's thread (sooner).
  await workers.waitForFunction(() => window.puffinLens.status().workers_ready > 0, null, { timeout: 30_000 });
  const names = [...fixtures, "cut.puffin", "runs.puffin"];
  for (const name of names) {
    const [w, one] = [await load(workers, name), await load(page1, name)];
    assert.equal(w.by, "workers", `${name}: decoded by the workers`);
    assert.equal(one.by, "page", `${name}: ?workers=0 decodes on the page's thread`);
    assert.equal(w.sha, one.sha, `${name}: the exports differ (${w.length} vs ${one.length} chars)`);
    assert.ok(w.length > 1000, `${name}: ${w.length}`);
  }
  const fell = await load(blocked, "runs.puffin");
  assert.equal(fell.by, "page");
  assert.equal(fell.sha, (await load(workers, "runs.puffin")).sha);
  assert.ok(blocked.logs.some((l) => /decode workers: cannot start/.test(l)), blocked.logs.join("\n"));
  // The workers' own log: several runs for the big file.
  const runs = workers.logs.map((l) => l.match(/runs\.puffin: decoded by \d+ workers in \d+ ms \((\d+) runs,/)).find(Boolean);
  assert.ok(runs && Number(runs[1]) > 3, workers.logs.join("\n"));
  for (const p of [workers, page1, blocked]) assert.deepEqual(p.logs.filter((l) => l.startsWith("pageerror")), []);
  await ctx.close();
  await blockedCtx.close();
});

await test("the worst case (2M scopes on random paths, A and B): every view answers; times and the page's longest tasks measured", async () => {
  const wctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  // Every task over 50 ms on the page's thread (Long Tasks API).
  await wctx.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: true });
  });
  const p = await openApp(wctx, `${server.base}?url=../recordings/worst_a.puffin&b=../recordings/worst_b.puffin`);
  await waitLoaded(p, "worst_b.puffin", "b", 300_000);
  await waitLoaded(p, "worst_a.puffin", "a", 300_000);
  // ?url=A&b=B lands on the findings (made in a worker); the diff table
  // is built once asked for.
  await p.waitForFunction(() => window.puffinLens.ui()?.view === "findings", null, { timeout: 300_000 });
  await p.evaluate(() => window.puffinLens.show("diff", { mode: "table" }));
  await p.waitForFunction(() => window.puffinLens.ui()?.view === "diff" && window.puffinLens.ui().rows.length > 0, null, {
    timeout: 300_000,
  });
  const now = () => p.evaluate(() => performance.now());
  const longest = (t0, t1) =>
    p.evaluate(([t0, t1]) => Math.max(0, ...window.__longTasks.filter(([s, d]) => s + d > t0 && s < t1).map(([, d]) => d)), [t0, t1]);
  const results = [];
  const record = async (what, t0, t1) => results.push({ view: what, answer_ms: Math.round(t1 - t0), longest_task_ms: Math.round(await longest(t0, t1)) });
  // Built in the frame both loads end in: its time as the app logs it, its
  // task the longest from the page's start to the table shown.
  const compared = p.logs.map((l) => l.match(/compared worst_a\.puffin and worst_b\.puffin in ([0-9.]+) ms/)).find(Boolean);
  assert.ok(compared, p.logs.join("\n"));
  results.push({ view: "diff table", answer_ms: Math.round(Number(compared[1])), longest_task_ms: Math.round(await longest(0, await now())) });
  // Until the view answers: show() applied (and, for the timeline, painted).
  const findingsAt = await now();
  await show(p, "findings");
  await p.waitForFunction(() => window.puffinLens.ui().computing === false, null, { timeout: 300_000, polling: 50 });
  const findingsDone = await now();
  const f = await ui(p);
  assert.equal(f.view, "findings");
  assert.deepEqual(f.runs.a, ["worst_a.puffin"]);
  assert.ok(f.compute_ms > 0);
  assert.equal(f.fallback, null, "made by a worker");
  await record("findings (a worker decodes and reports)", findingsAt, findingsDone);
  const summary = await p.evaluate(() => window.puffinLens.summary("a"));
  const step = async (what, view, options, check, painted = () => true) => {
    const t0 = await now();
    await show(p, view, options);
    await p.waitForFunction(painted, null, { timeout: 120_000, polling: 20 });
    const t1 = await now();
    check(await ui(p));
    await record(what, t0, t1);
  };
  // The diff tree, the merged tree and the table are built a slice per
  // frame: answered once they are built.
  await step(
    "diff tree",
    "diff",
    { mode: "tree" },
    (got) => {
      assert.equal(got.mode, "tree");
      assert.ok(got.rows.length > 0);
    },
    () => window.puffinLens.ui().building === null,
  );
  await p.evaluate(() => window.puffinLens.show("overview").then(() => 0, () => 0));
  await step(
    "merged tree (all frames)",
    "tree",
    { mode: "merged", frame: null },
    (got) => {
      assert.equal(got.tree_mode, "merged");
      assert.ok(got.rows.length > 0);
    },
    () => window.puffinLens.ui().tree_building === null,
  );
  // A transform added, then popped, on the merged tree of all frames
  // (614k nodes): applied a slice per frame, answered once applied.
  for (const [what, list] of [["transform added (merge:fn_1*)", ["merge:fn_1*"]], ["transform popped", []]]) {
    const t0 = await now();
    await p.evaluate((l) => window.puffinLens.setTransforms(l), list);
    await p.waitForFunction(() => window.puffinLens.ui().tree_building === null, null, { timeout: 120_000, polling: 20 });
    const t1 = await now();
    const got = await ui(p);
    assert.deepEqual(got.transforms, list);
    assert.ok(got.rows.length > 0);
    await record(what, t0, t1);
  }
  await step(
    "table by name and data",
    "table",
    { by: "name-data", frame: null },
    (got) => {
      // Nine scopes in ten carry a data string of their own.
      assert.ok(got.table.rows_total > 0.85 * summary.scopes, `${got.table.rows_total} of ${summary.scopes}`);
    },
    () => window.puffinLens.ui().table.building === null,
  );
  await step(
    "timeline of everything",
    "timeline",
    { all: true },
    (got) => {
      assert.equal(got.view, "timeline");
      assert.ok(got.lanes.some((l) => l.bars > 0), JSON.stringify(got.lanes));
    },
    () => window.puffinLens.ui().lanes?.some((l) => l.bars > 0),
  );
  await p.screenshot({ path: join(OUT, "worst_timeline.png") });
  writeFileSync(join(OUT, "worst_case.json"), JSON.stringify(results, null, 2));
  for (const r of results) console.log(`     ${r.view.padEnd(26)} ${String(r.answer_ms).padStart(6)} ms, longest task ${r.longest_task_ms} ms`);
  assert.deepEqual(p.logs.filter((l) => l.startsWith("pageerror")), []);
  await wctx.close();
});

await test("the page requested nothing but its own files", async () => {
  // Besides the app's own files: the report page (file://) and the download
  // that is meant to fail.
  const foreign = requests.filter(
    (u) => !u.startsWith(server.origin + "/") && !u.startsWith("data:") && !u.startsWith("blob:") && !u.startsWith("file://") && u !== unreachableUrl,
  );
  assert.deepEqual(foreign, []);
  const own = [...new Set(requests.map((u) => new URL(u).pathname))].sort();
  console.log(`     requests: ${own.join(" ")}`);
});

await browser.close();
server.stop();
console.log("screenshots in target/e2e/");
finish();
