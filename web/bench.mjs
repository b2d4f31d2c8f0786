// Browser load benchmark: a 2-million-scope capture (lz4, then zstd) is
// dropped on the app in headless Chromium. Reports the time from the drop to
// the first repaint that shows its overview, the longest gap between two
// repaints meanwhile, and the wasm memory used, next to the native decode
// time of the same file measured in the same run.
//
// Usage: node web/bench.mjs   (after `trunk build --release` and
// `cargo build --release --example capture`). Results: target/e2e/bench.json
// BENCH_COMPRESSIONS=lz4,zstd,json picks the files (json: the capture's
// 210 MB JSON dump); BENCH_VIEWPORT=640x400 the page size.

import { execFileSync } from "node:child_process";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OUT, ROOT, launch, openApp, serve, tempDir } from "./harness.mjs";

const CAPTURE = join(ROOT, "target", "release", "examples", "capture");
const work = tempDir("puffin-lens-bench-");
mkdirSync(OUT, { recursive: true });

const files = {};
for (const compression of (process.env.BENCH_COMPRESSIONS || "lz4,zstd").split(",")) {
  const name = `capture_${compression}.${compression === "json" ? "json" : "puffin"}`;
  execFileSync(CAPTURE, ["gen", join(work, name), compression], { stdio: "inherit" });
  files[name] = join(work, name);
}
const server = await serve(files);
const browser = await launch();
const results = [];

for (const [name, path] of Object.entries(files)) {
  const native = JSON.parse(execFileSync(CAPTURE, ["decode", path]).toString());
  const [width, height] = (process.env.BENCH_VIEWPORT || "1400x900").split("x").map(Number);
  const context = await browser.newContext({ viewport: { width, height } });
  await context.addInitScript(() => {
    addEventListener("TrunkApplicationStarted", (e) => {
      window.__wasm = e.detail.wasm;
    });
  });
  const page = await openApp(context, server.base);
  // Fetch the file first, so the timing covers the app's work only.
  await page.evaluate(async (name) => {
    const blob = await (await fetch(`../recordings/${name}`)).blob();
    window.__file = new File([blob], name);
  }, name);
  const memoryBefore = await page.evaluate(() => window.__wasm.memory.buffer.byteLength);
  const run = await page.evaluate(
    (name) =>
      new Promise((done) => {
        const frames = [];
        const t0 = performance.now();
        const tick = (t) => {
          frames.push(performance.now());
          const s = window.puffinLens.status();
          if (s.a === name && !s.loading) {
            let maxGap = frames[0] - t0;
            for (let i = 1; i < frames.length; i++) maxGap = Math.max(maxGap, frames[i] - frames[i - 1]);
            const gaps = frames.map((f, i) => Math.round(f - (i ? frames[i - 1] : t0)));
            done({ shownMs: frames[frames.length - 1] - t0, maxGapMs: maxGap, repaints: frames.length, gaps, error: s.error });
            return;
          }
          if (s.error) {
            done({ error: s.error });
            return;
          }
          requestAnimationFrame(tick);
        };
        const dt = new DataTransfer();
        dt.items.add(window.__file);
        const canvas = document.getElementById("puffin_lens_canvas");
        for (const type of ["dragenter", "dragover", "drop"]) {
          canvas.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
        }
        requestAnimationFrame(tick);
      }),
    name,
  );
  if (run.error) throw new Error(`${name}: ${run.error}`);
  // The views on the loaded capture: the engine work each one logs (the
  // merged tree of every frame, the table's statistics), and the whole
  // show() round trip (that work, the ui() answer and a canvas repaint).
  const views = {};
  for (const [key, view, options] of [
    ["tree_merged", "tree", { mode: "merged" }],
    ["table_name_data", "table", { by: "name-data" }],
    ["table_sort_p95", "table", { sort: "p95" }],
    ["tree_frame", "tree", { mode: "frame", expand: "all" }],
  ]) {
    const t0 = Date.now();
    await page.evaluate(({ view, options }) => window.puffinLens.show(view, options), { view, options });
    // The table is built a slice per frame: until it is.
    await page.waitForFunction(() => window.puffinLens.ui().table.building === null, null, { timeout: 120_000, polling: 20 });
    views[`${key}_show_ms`] = Date.now() - t0;
  }
  const viewLogs = page.logs.filter((l) => / merged tree of | table of /.test(l));
  const summary = await page.evaluate(() => window.puffinLens.summary());
  const memoryAfter = await page.evaluate(() => window.__wasm.memory.buffer.byteLength);
  if (summary.scopes !== native.scopes) throw new Error(`${name}: ${summary.scopes} scopes in the browser, ${native.scopes} natively`);
  const result = {
    file: name,
    size_mb: +(statSync(path).size / 1e6).toFixed(1),
    scopes: summary.scopes,
    browser_drop_to_overview_ms: Math.round(run.shownMs),
    browser_longest_repaint_gap_ms: Math.round(run.maxGapMs),
    browser_repaints: run.repaints,
    browser_repaint_gaps_ms: run.gaps,
    wasm_memory_mb_before: +(memoryBefore / 2 ** 20).toFixed(0),
    wasm_memory_mb_after: +(memoryAfter / 2 ** 20).toFixed(0),
    native_single_thread_ms: native.single_ms,
    native_parallel_ms: native.parallel_ms,
    ratio_browser_to_native_single: +(run.shownMs / native.single_ms).toFixed(2),
    views,
    view_logs: viewLogs,
  };
  console.log(JSON.stringify(result));
  for (const line of page.logs.filter((l) => l.includes(name))) console.log(`     page: ${line}`);
  results.push(result);
  await page.screenshot({ path: join(OUT, `bench_${name}.png`) });
  await context.close();
}

await browser.close();
server.stop();
const dist = join(ROOT, "dist");
const wasm = execFileSync("sh", ["-c", `ls ${dist}/*.wasm`]).toString().trim();
const raw = statSync(wasm).size;
const gz = +execFileSync("sh", ["-c", `gzip -9 -c ${wasm} | wc -c`]).toString().trim();
const size = { wasm_raw_kb: Math.round(raw / 1024), wasm_gzip_kb: Math.round(gz / 1024) };
console.log(JSON.stringify(size));
writeFileSync(join(OUT, "bench.json"), JSON.stringify({ results, size }, null, 2) + "\n");
