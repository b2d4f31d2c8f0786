// Browser load benchmark: a 2-million-scope capture (lz4, then zstd) is
// dropped on the app in headless Chromium, decoded by the page's decode
// workers (the default) and on the page's own thread (`?workers=0`). Reports
// the time from the drop to the first repaint that shows its overview, the
// decode's own time (as the app logs it), the page thread's busy time during
// the load (CDP `Performance.getMetrics` TaskDuration: workers excluded) and
// its longest task (Long Tasks API), the longest gap between two repaints,
// and the memory the app holds at its peak during the load and after, next
// to the native decode time of the same file measured in the same run.
// BENCH_WORKERS=N also runs `?workers=N` (a pool of N workers).
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
execFileSync(CAPTURE, ["worst", join(work, "warmup.puffin"), "1", "1"], { stdio: "inherit" });
const server = await serve({ ...files, "warmup.puffin": join(work, "warmup.puffin") });
const browser = await launch();
const results = [];

const paths = [["workers", ""], ["page", "?workers=0"]];
if (process.env.BENCH_WORKERS) paths.push([`workers=${process.env.BENCH_WORKERS}`, `?workers=${process.env.BENCH_WORKERS}`]);

for (const [name, path] of Object.entries(files)) {
  const native = JSON.parse(execFileSync(CAPTURE, ["decode", path]).toString());
  for (const [decoder, query] of paths) {
  const [width, height] = (process.env.BENCH_VIEWPORT || "1400x900").split("x").map(Number);
  const context = await browser.newContext({ viewport: { width, height } });
  await context.addInitScript(() => {
    addEventListener("TrunkApplicationStarted", (e) => {
      window.__wasm = e.detail.wasm;
    });
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: true });
  });
  const page = await openApp(context, server.base + query);
  // The pool starts with the first load: one small load first, so the
  // timing below is the decode's (as for any load after the first).
  await page.evaluate(async () => {
    const bytes = new Uint8Array(await (await fetch("../recordings/warmup.puffin")).arrayBuffer());
    await window.puffinLens.load(bytes, "warmup.puffin", "b");
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const taskSeconds = async () => (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "TaskDuration").value;
  // Fetch the file first, so the timing covers the app's work only.
  await page.evaluate(async (name) => {
    const blob = await (await fetch(`../recordings/${name}`)).blob();
    window.__file = new File([blob], name);
  }, name);
  const memoryBefore = await page.evaluate(() => window.__wasm.memory.buffer.byteLength);
  const tasksBefore = await taskSeconds();
  const run = await page.evaluate(
    (name) =>
      new Promise((done) => {
        const frames = [];
        const t0 = performance.now();
        let peak = 0;
        const tick = (t) => {
          frames.push(performance.now());
          const s = window.puffinLens.status();
          peak = Math.max(peak, s.memory.in_use_bytes);
          if (s.a === name && !s.loading) {
            let maxGap = frames[0] - t0;
            for (let i = 1; i < frames.length; i++) maxGap = Math.max(maxGap, frames[i] - frames[i - 1]);
            const gaps = frames.map((f, i) => Math.round(f - (i ? frames[i - 1] : t0)));
            const t1 = frames[frames.length - 1];
            const longest = Math.max(0, ...window.__longTasks.filter(([s0, d]) => s0 + d > t0 && s0 < t1).map(([, d]) => d));
            done({
              shownMs: t1 - t0,
              maxGapMs: maxGap,
              repaints: frames.length,
              gaps,
              error: s.error,
              decodedBy: s.decoded_by.a,
              longestTaskMs: longest,
              peakInUse: peak,
              afterInUse: s.memory.in_use_bytes,
            });
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
  const pageBusyMs = ((await taskSeconds()) - tasksBefore) * 1e3;
  if (run.error) throw new Error(`${name}: ${run.error}`);
  // The decode's own time, as the app logs it.
  const decodeLine = page.logs.find((l) => l.includes(`${name}: decoded`)) || "";
  const decodeMs = Number((decodeLine.match(/decoded by \d+ workers in (\d+) ms/) || decodeLine.match(/decoded in (\d+) ms of work/) || [])[1]);
  const pageMergeMs = Number((decodeLine.match(/the page's thread spent (\d+) ms/) || [])[1] ?? decodeMs);
  // The views on the loaded capture: the engine work each one logs (the
  // merged tree of every frame, the table's statistics), and the whole
  // show() round trip (that work, the ui() answer and a canvas repaint).
  const views = {};
  // The views once (they do not depend on how the recording was decoded).
  for (const [key, view, options] of decoder !== "workers" ? [] : [
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
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const summary = await page.evaluate(() => window.puffinLens.summary());
  const memoryAfter = await page.evaluate(() => window.__wasm.memory.buffer.byteLength);
  if (summary.scopes !== native.scopes) throw new Error(`${name}: ${summary.scopes} scopes in the browser, ${native.scopes} natively`);
  const result = {
    file: name,
    decoder,
    decoded_by: run.decodedBy,
    hardware_concurrency: cores,
    size_mb: +(statSync(path).size / 1e6).toFixed(1),
    scopes: summary.scopes,
    browser_decode_ms: decodeMs,
    ratio_decode_to_native_single: +(decodeMs / native.single_ms).toFixed(2),
    page_thread_busy_ms: Math.round(pageBusyMs),
    page_thread_decode_ms: pageMergeMs,
    longest_task_ms: Math.round(run.longestTaskMs),
    memory_in_use_mb_peak: +(run.peakInUse / 2 ** 20).toFixed(0),
    memory_in_use_mb_after: +(run.afterInUse / 2 ** 20).toFixed(0),
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
  await page.screenshot({ path: join(OUT, `bench_${name}_${decoder}.png`) });
  await context.close();
  }
}

// The page thread's share: its busy time while the workers decode, next
// to its busy time decoding alone.
for (const r of results.filter((r) => r.decoder !== "page")) {
  const alone = results.find((x) => x.file === r.file && x.decoder === "page");
  if (alone) r.page_thread_busy_vs_decoding_alone = +(r.page_thread_busy_ms / alone.page_thread_busy_ms).toFixed(2);
  console.log(`${r.file} ${r.decoder}: page thread busy ${r.page_thread_busy_ms} ms = ${r.page_thread_busy_vs_decoding_alone}x its ${alone?.page_thread_busy_ms} ms decoding alone; longest task ${r.longest_task_ms} ms`);
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
