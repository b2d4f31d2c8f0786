// Shared by the browser test (e2e.mjs) and benchmark (bench.mjs): serves
// dist/ under a sub-path on 127.0.0.1, drives Debian's headless Chromium
// with playwright-core, and drops files on the app's canvas.

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, cpSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// The built site: dist/, or PUFFIN_LENS_DIST (another build of it).
export const DIST = process.env.PUFFIN_LENS_DIST ? resolve(process.env.PUFFIN_LENS_DIST) : join(ROOT, "dist");
// The native binaries the tests run: the ones `cargo test` built (debug
// profile; scripts/test.sh builds nothing else natively), or another
// profile's with PUFFIN_LENS_PROFILE=release (web/bench.mjs: release).
export const PROFILE_DIR = join(ROOT, "target", process.env.PUFFIN_LENS_PROFILE || "debug");
export const BIN = process.env.PUFFIN_LENS_BIN || join(PROFILE_DIR, "puffin-lens");
/** An example's binary (examples/NAME.rs), of the same profile. */
export const example = (name) => join(PROFILE_DIR, "examples", name);
export const OUT = join(ROOT, "target", "e2e");

// Interrupted runs clean up too: a signal ends the process through exit.
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

/** A fresh folder under the system's temporary folder, removed when the process exits. */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

/**
 * Serves a fresh folder holding the site under /lens/ (a sub-path) and the
 * given recordings under /recordings/. Returns {base, origin, root, stop, restart}.
 */
export async function serve(recordings = {}) {
  const root = tempDir("puffin-lens-site-");
  cpSync(DIST, join(root, "lens"), { recursive: true });
  mkdirSync(join(root, "recordings"));
  for (const [name, path] of Object.entries(recordings)) {
    cpSync(path, join(root, "recordings", name));
  }
  const port = await freePort();
  let proc = null;
  const start = async () => {
    proc = spawn("python3", ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", root], {
      stdio: ["ignore", "ignore", "ignore"],
    });
    const origin = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) {
      try {
        const r = await fetch(`${origin}/lens/`);
        if (r.ok) return;
      } catch {}
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the server on ${origin} did not start`);
  };
  await start();
  const stop = () => {
    if (proc) {
      proc.kill("SIGTERM");
      proc = null;
    }
  };
  process.on("exit", stop);
  const origin = `http://127.0.0.1:${port}`;
  return { origin, base: `${origin}/lens/`, root, stop, restart: start };
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--use-angle=swiftshader",
      "--enable-unsafe-swiftshader",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-default-apps",
      "--disable-domain-reliability",
      "--metrics-recording-only",
    ],
  });
}

/** Opens the app and waits until it runs (the JS API exists, the canvas is live). */
export async function openApp(context, url) {
  const page = await context.newPage();
  const logs = [];
  page.on("console", (m) => logs.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => logs.push(`pageerror: ${e.message}`));
  page.logs = logs;
  await page.goto(url);
  await page.waitForFunction(() => window.puffinLens && !document.getElementById("loading_text"), null, {
    timeout: 60_000,
  });
  return page;
}

/** Drops a file on the canvas as a browser would (DragEvent with a DataTransfer):
 * at its middle, or at `at` ([x, y], CSS pixels from the canvas's top left). */
export async function dropFile(page, name, bytes, at = null) {
  const b64 = Buffer.from(bytes).toString("base64");
  await page.evaluate(
    async ({ name, b64, where }) => {
      const bin = atob(b64);
      const arr = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) arr[i] = bin.charCodeAt(i);
      const dt = new DataTransfer();
      dt.items.add(new File([arr], name, { type: "application/octet-stream" }));
      const canvas = document.getElementById("puffin_lens_canvas");
      const rect = canvas.getBoundingClientRect();
      const at = where
        ? { clientX: rect.left + where[0], clientY: rect.top + where[1] }
        : { clientX: rect.left + rect.width / 2, clientY: rect.top + rect.height / 2 };
      for (const type of ["dragenter", "dragover", "drop"]) {
        canvas.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true, ...at }));
      }
    },
    { name, b64, where: at },
  );
}

/** Waits until side `side` shows `name` and nothing is loading. */
export async function waitLoaded(page, name, side = "a", timeout = 120_000) {
  await page.waitForFunction(
    ({ name, side }) => {
      const s = window.puffinLens.status();
      return s[side] === name && !s.loading && !s.fetching && !s.reading;
    },
    { name, side },
    { timeout, polling: 20 },
  );
}

/** Runs the native CLI and returns stdout (exit status must be `status`). */
export function cli(args, { cwd = ROOT, status = 0 } = {}) {
  try {
    const out = execFileSync(BIN, args, { cwd, maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "pipe"] });
    if (status !== 0) throw new Error(`${args.join(" ")}: exit 0, expected ${status}`);
    return out.toString("utf8");
  } catch (e) {
    if (e.status === status) return e.stdout.toString("utf8");
    throw e;
  }
}

/**
 * A small test runner: `test(name, body)` runs one test and reports it;
 * `finish()` prints "N passed, N failed" and exits 1 when any failed.
 */
export function runner() {
  let ran = 0;
  let failures = 0;
  return {
    async test(name, body) {
      // E2E_ONLY=<text>: only the tests whose name contains it.
      if (process.env.E2E_ONLY && !name.includes(process.env.E2E_ONLY)) return;
      ran++;
      const t0 = Date.now();
      try {
        await body();
        console.log(`ok   ${name} (${Date.now() - t0} ms)`);
      } catch (err) {
        failures++;
        console.log(`FAIL ${name}\n${err.stack || err}`);
      }
    },
    finish() {
      console.log(`${ran - failures} passed, ${failures} failed`);
      if (failures) process.exit(1);
    },
  };
}

export function read(path) {
  return readFileSync(path);
}
