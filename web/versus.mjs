// Side by side: puffin-lens and speedscope (its own static build, from npm)
// opening the same recording in headless Chromium on this machine, offline
// (both sites and the recordings are served from 127.0.0.1).
//
// What is measured, per run in a fresh browser context (nothing cached), from
// the navigation's start (performance.now() in the page) until the
// recording can be analysed:
// - puffin-lens: `?url=` naming the .puffin; done at the first repaint after
//   `puffinLens.status()` shows it loaded (side A, nothing loading). Its
//   start-up alone: the page without a file, done at its first frame.
// - speedscope: `#profileURL=` naming the speedscope JSON, then the Chrome
//   trace, that `puffin-lens export` writes from the same recording; done at
//   the first repaint after its toolbar names the shown profile ("1/N") next
//   to a drawn canvas.
// The start-up again on a return visit: the page reloaded 3 s after its first
// load (the service worker's copy of the site, Chromium's cache of the
// compiled .wasm).
// Also per run: the page thread's longest task (Long Tasks API) from the
// navigation to done, and puffin-lens's own marks (`status().timings`).
// Each run's new window is left VERSUS_SETTLE_MS (2000) ms to settle before
// the navigation (see measure()).
// Reports the median of VERSUS_RUNS (3) runs; a run over VERSUS_TIMEOUT_S
// (120) seconds is reported as not done in that time.
//
// Usage: node web/versus.mjs   (after `trunk build --release`, and
// `cargo build --release --bin puffin-lens --example capture`).
// VERSUS_LENS_ONLY=1 measures puffin-lens alone; VERSUS_LENS_QUERY=workers=0&
// adds to its query string. VERSUS_SIZES=200k,2m picks the recordings (the benchmark capture of
// examples/capture.rs, 20 or 200 frames of 10,000 scopes, lz4).
// Results: target/e2e/versus.json, and a Markdown table on stdout.

import { execFileSync } from "node:child_process";
import { closeSync, cpSync, mkdirSync, openSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DIST, OUT, ROOT, launch, serve, tempDir } from "./harness.mjs";

const RELEASE = join(ROOT, "target", "release");
const CAPTURE = join(RELEASE, "examples", "capture");
const BIN = join(RELEASE, "puffin-lens");
const RUNS = Number(process.env.VERSUS_RUNS || 3);
const TIMEOUT_MS = Number(process.env.VERSUS_TIMEOUT_S || 120) * 1000;
const SIZES = { "200k": 20, "2m": 200 };
const SETTLE_MS = Number(process.env.VERSUS_SETTLE_MS ?? 2000);

const work = tempDir("puffin-lens-versus-");
mkdirSync(OUT, { recursive: true });
const recordings = {};
const cases = [];
for (const size of (process.env.VERSUS_SIZES || "200k,2m").split(",")) {
  const frames = SIZES[size];
  if (!frames) throw new Error(`VERSUS_SIZES: unknown size ${size} (200k or 2m)`);
  const name = `capture_${size}.puffin`;
  const path = join(work, name);
  execFileSync(CAPTURE, ["gen", path, "lz4", String(frames)], { stdio: "inherit" });
  const exports = {};
  for (const [format, suffix] of [["speedscope", "speedscope.json"], ["chrome", "trace.json"]]) {
    exports[format] = `capture_${size}.${suffix}`;
    const out = openSync(join(work, exports[format]), "w");
    execFileSync(BIN, ["export", path, "-o", "-", "--format", format], { stdio: ["ignore", out, "inherit"] });
    closeSync(out);
    recordings[exports[format]] = join(work, exports[format]);
  }
  recordings[name] = path;
  const scopes = JSON.parse(execFileSync(BIN, ["summary", path, "--json"]).toString()).scopes;
  cases.push({ size, name, scopes, exports });
}
const server = await serve(recordings);
cpSync(join(ROOT, "web", "node_modules", "speedscope", "dist", "release"), join(server.root, "speedscope"), { recursive: true });

// Installed before the page's own scripts: the long tasks, and a check on
// every repaint that records when `done()` first holds.
const watch = (doneSource) => `
  window.__longTasks = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
    .observe({ type: "longtask", buffered: true });
  window.__done = null;
  const done = ${doneSource};
  const tick = () => {
    let ok = false;
    try { ok = done(); } catch {}
    if (ok) {
      // The repaint after: what the check saw is on screen.
      requestAnimationFrame(() => { window.__done = performance.now(); });
    } else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
`;

// At most `ms`, then on: a page busy for minutes may not close when asked.
const within = (promise, ms) => Promise.race([promise, new Promise((r) => setTimeout(r, ms))]);

// One browser (as a user's is already running), a fresh context per run:
// nothing cached or compiled from another run.
let browser = await launch();

async function measure(url, doneSource, withTimings, revisit = false) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.addInitScript(watch(doneSource));
  const page = await context.newPage();
  // A user opens the link in a browser window that is already there. Here
  // each context opens a new window, and its own browser UI (Chromium's
  // omnibox popup WebUI renderer) loads for about a second on one of the
  // two cores: measured in a trace, it ran through the whole start-up.
  await page.waitForTimeout(SETTLE_MS);
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // The limit kept here too: a page that blocks its thread for minutes
  // keeps Playwright's own check from running.
  const done = () => {
    let timer;
    return Promise.race([
      page.waitForFunction(() => window.__done !== null, null, { timeout: TIMEOUT_MS, polling: 50 }),
      new Promise((_, fail) => {
        timer = setTimeout(() => fail(new Error(`Timeout: not done in ${TIMEOUT_MS} ms`)), TIMEOUT_MS + 5_000);
      }),
    ]).finally(() => clearTimeout(timer));
  };
  try {
    await page.goto(url);
    await done();
    if (revisit) {
      // A return visit: the service worker holds the site by now, and the
      // browser its compiled code.
      await page.waitForTimeout(3000);
      await page.reload();
      await done();
    }
    return await page.evaluate((withTimings) => {
      const doneMs = window.__done;
      const longest = Math.max(0, ...window.__longTasks.filter(([s]) => s < doneMs).map(([, d]) => d));
      const timings = withTimings ? [...window.puffinLens.status().timings] : undefined;
      // The recording's download, as the network saw it.
      const name = (new URLSearchParams(location.search).get("url") || "").split("/").pop();
      for (const e of name ? performance.getEntriesByType("resource") : []) {
        if (e.name.split("?")[0].endsWith(name)) {
          timings.push({ name: "download-start", at_ms: e.startTime }, { name: "download-end", at_ms: e.responseEnd });
        }
      }
      timings?.sort((a, b) => a.at_ms - b.at_ms);
      timings?.push({ name: "done", at_ms: doneMs });
      return { ms: doneMs, longestTaskMs: longest, timings };
    }, withTimings);
  } catch (err) {
    if (errors.length) throw new Error(`${url}: ${errors.join("; ")}`);
    if (/Timeout/.test(String(err))) {
      // The page may stay busy for minutes: a new browser for the next run.
      await within(browser.close(), 10_000);
      browser = await launch();
      return { ms: null, timedOut: true };
    }
    throw err;
  } finally {
    await within(context.close(), 10_000);
  }
}

const lensLoaded = (name) =>
  `() => { const s = window.puffinLens && window.puffinLens.status(); return !!s && s.a === ${JSON.stringify(name)} && !s.loading && !s.fetching; }`;
const lensStarted = `() => { const s = window.puffinLens && window.puffinLens.status(); return !!s && s.timings.some((t) => t.name === "first-frame"); }`;
const speedscopeShown = `() => document.querySelector("canvas") !== null && /\\b1\\/\\d+\\b/.test(document.body.innerText)`;

const median = (xs) => {
  if (xs.some((x) => x === null)) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const runs = async (label, url, done, withTimings = false, revisit = false) => {
  const all = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await measure(url, done, withTimings, revisit);
    all.push(r);
    console.log(`  ${label} run ${i + 1}: ${r.ms === null ? `not done in ${TIMEOUT_MS / 1000} s` : `${Math.round(r.ms)} ms`}${r.longestTaskMs !== undefined ? `, longest task ${Math.round(r.longestTaskMs)} ms` : ""}`);
    // Not done once: the others would not be either.
    if (r.ms === null) break;
  }
  const ms = median(all.map((r) => r.ms));
  return {
    ms: ms === null ? null : Math.round(ms),
    runs: all.map((r) => (r.ms === null ? null : Math.round(r.ms))),
    longest_task_ms: ms === null ? null : Math.round(Math.max(...all.map((r) => r.longestTaskMs))),
    timings: all.find((r) => r.ms === ms)?.timings?.map((t) => ({ name: t.name, at_ms: Math.round(t.at_ms) })),
  };
};

const lens = server.base;
const startup = await runs("puffin-lens start-up (no file)", lens, lensStarted, true);
const revisit = await runs("puffin-lens start-up, a return visit", lens, lensStarted, true, true);
const results = [];
for (const c of cases) {
  const row = { ...c };
  row.puffin_lens = await runs(`puffin-lens ${c.name}`, `${lens}?${process.env.VERSUS_LENS_QUERY || ""}url=${encodeURIComponent(`../recordings/${c.name}`)}`, lensLoaded(c.name), true);
  // VERSUS_LENS_ONLY=1: puffin-lens alone (while working on it).
  for (const [format, file] of process.env.VERSUS_LENS_ONLY ? [] : Object.entries(c.exports)) {
    const target = `${server.origin}/recordings/${file}`;
    row[`speedscope_${format}`] = await runs(`speedscope ${file}`, `${server.origin}/speedscope/index.html#profileURL=${encodeURIComponent(target)}`, speedscopeShown);
  }
  row.size_mb = +(statSync(recordings[c.name]).size / 1e6).toFixed(1);
  results.push(row);
}
await within(browser.close(), 10_000);
server.stop();

const wasm = readdirSync(DIST).find((f) => f.endsWith(".wasm"));
const wasmBytes = statSync(join(DIST, wasm)).size;
const chromium = execFileSync(process.env.CHROMIUM || "/usr/bin/chromium", ["--version"], { stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
const speedscopeVersion = JSON.parse(execFileSync("node", ["-p", "JSON.stringify(require('./web/node_modules/speedscope/package.json').version)"], { cwd: ROOT }).toString());

const s = (r) => (!r ? "-" : r.ms === null ? `not done in ${TIMEOUT_MS / 1000} s` : `${(r.ms / 1000).toFixed(2)} s`);
const lines = [
  `puffin-lens (${DIST}, .wasm ${(wasmBytes / 2 ** 20).toFixed(1)} MiB) vs speedscope ${speedscopeVersion}, ${chromium}, headless, median of ${RUNS}:`,
  "",
  "| recording | puffin-lens | of which start-up (no file) | speedscope (its JSON) | speedscope (Chrome trace) |",
  "|---|---|---|---|---|",
  ...results.map((r) => `| ${r.scopes.toLocaleString("en")} scopes (${r.size_mb} MB) | ${s(r.puffin_lens)} | ${s(startup)} | ${s(r.speedscope_speedscope)} | ${s(r.speedscope_chrome)} |`),
  "",
  `puffin-lens start-up marks (ms from navigation): ${startup.timings.map((t) => `${t.name} ${t.at_ms}`).join(", ")}`,
  `puffin-lens start-up on a return visit (the service worker's copy, the compiled code cached): ${s(revisit)}; marks: ${revisit.timings.map((t) => `${t.name} ${t.at_ms}`).join(", ")}`,
  ...results.map((r) => `puffin-lens ${r.name}: longest task ${r.puffin_lens.longest_task_ms} ms; marks: ${(r.puffin_lens.timings || []).map((t) => `${t.name} ${t.at_ms}`).join(", ")}`),
];
console.log(lines.join("\n"));
writeFileSync(join(OUT, "versus.json"), JSON.stringify({ chromium, speedscope: speedscopeVersion, wasm_bytes: wasmBytes, runs: RUNS, startup, revisit, results }, null, 2) + "\n");
// A browser that did not close (a page still busy) ends with the process.
process.exit(0);
