// The browser under pressure (headless Chromium): requests that overlap or
// cannot fit must each end in a defined state that status() names, with no
// progress bar left behind and no page error:
//  - a second file dropped while the first decodes replaces it;
//  - drops 100 ms apart: the later made wins, whatever order the bytes
//    arrive in;
//  - a file dropped while a ?url= download runs cancels the download;
//  - two load() calls at once: the later wins, the first is rejected;
//  - query() while loading answers about what is shown, or says what loads;
//  - a recording too large for the wasm memory is refused before decoding
//    (its size and the desktop app / CLI named), the one shown stays; by its
//    size before reading it, and by its content (a 0.5 MB file of 150 M
//    scopes) before decoding it; two that each fit but not together.
//
// Usage: node web/pressure.mjs   (after `trunk build --release` and
// `cargo test`, which builds the binary and the `capture` example)

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { OUT, ROOT, cli, dropFile, example, freePort, launch, openApp, read, runner, serve, tempDir, waitLoaded } from "./harness.mjs";

const SAMPLE = "threads_demo.puffin";
const SAMPLE_PATH = join(ROOT, "samples", SAMPLE);
const CAPTURE = example("capture");

const { test, finish } = runner();

mkdirSync(OUT, { recursive: true });
const work = tempDir("puffin-lens-pressure-");
// 2 million scopes (33.6 MB, lz4): decodes in many slices in the browser.
const BIG = join(work, "big.puffin");
execFileSync(CAPTURE, ["gen", BIG, "lz4"], { stdio: "ignore" });
// 150 frames of 1 M scopes: 0.5 MB on disk, about 7 GB decoded natively.
const HUGE = join(work, "huge.puffin");
execFileSync(CAPTURE, ["huge", HUGE, "150", "1000000"], { stdio: "ignore" });
const bigSize = statSync(BIG).size;
const sampleBytes = read(SAMPLE_PATH);
const expected = {
  sample: JSON.parse(cli(["summary", SAMPLE_PATH, "--json"])),
  sampleTop: JSON.parse(cli(["top", SAMPLE_PATH, "--top", "3", "--json"])),
  big: JSON.parse(cli(["summary", BIG, "--json"])),
  bigTop: JSON.parse(cli(["top", BIG, "--top", "3", "--json"])),
};

const server = await serve({ [SAMPLE]: SAMPLE_PATH, "big.puffin": BIG, "big2.puffin": BIG, "huge.puffin": HUGE });

// A download that never finishes: headers and the first 64 KB of the big
// capture, then nothing until the client goes away (recorded).
const slow = { port: await freePort(), closed: 0, served: 0 };
const slowServer = createServer((req, res) => {
  slow.served++;
  res.writeHead(200, {
    "Content-Type": "application/octet-stream",
    "Content-Length": String(bigSize),
    "Access-Control-Allow-Origin": "*",
  });
  createReadStream(BIG, { start: 0, end: 65535 }).on("data", (d) => res.write(d));
  res.on("close", () => slow.closed++);
});
await new Promise((ok) => slowServer.listen(slow.port, "127.0.0.1", ok));
const slowUrl = `http://127.0.0.1:${slow.port}/big.puffin`;

const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });

const status = (p) => p.evaluate(() => window.puffinLens.status());
/** No page error, nothing loading or downloading, the progress bar hidden. */
async function settled(p) {
  const s = await status(p);
  assert.equal(s.loading, null, `nothing loading: ${JSON.stringify(s.loading)}`);
  assert.equal(s.fetching, null, `nothing downloading: ${s.fetching}`);
  assert.equal(s.reading, null, `nothing being read: ${s.reading}`);
  const [hidden, bar] = await p.evaluate(() => [document.getElementById("load_progress").hidden, document.getElementById("load_progress").textContent]);
  assert.ok(hidden, `the progress bar is hidden (it shows ${JSON.stringify(bar)}; status ${JSON.stringify(s)}; log ${p.logs.slice(-12).join(" | ")})`);
  assert.deepEqual(p.logs.filter((l) => l.startsWith("pageerror") || l.includes("panicked")), []);
  return s;
}
/** Fetches files from the site and drops them on the canvas, in the page. */
const dropFetched = (p, names, { whenDecoding, apartMs } = {}) =>
  p.evaluate(
    async ({ names, whenDecoding, apartMs }) => {
      const files = await Promise.all(
        names.map(async (n) => new File([await (await fetch(`../recordings/${n}`)).blob()], n)),
      );
      const drop = (list) => {
        const dt = new DataTransfer();
        for (const f of list) dt.items.add(f);
        const canvas = document.getElementById("puffin_lens_canvas");
        const r = canvas.getBoundingClientRect();
        const at = { clientX: r.width / 2, clientY: r.height / 2, bubbles: true, cancelable: true };
        for (const type of ["dragenter", "dragover", "drop"]) canvas.dispatchEvent(new DragEvent(type, { dataTransfer: dt, ...at }));
      };
      if (apartMs !== undefined) {
        // One drop per file, apartMs apart.
        for (const [i, f] of files.entries()) {
          if (i > 0) await new Promise((r) => setTimeout(r, apartMs));
          drop([f]);
        }
        return null;
      }
      if (!whenDecoding) return drop(files);
      // The first file, then the second as soon as the first is decoding.
      drop([files[0]]);
      for (;;) {
        const s = window.puffinLens.status();
        if (s.loading && s.loading.name === files[0].name) {
          const seen = { ...s.loading };
          drop([files[1]]);
          return seen;
        }
        await new Promise((r) => setTimeout(r, 1));
      }
    },
    { names, whenDecoding, apartMs },
  );

await test("a second file dropped while the first decodes replaces it", async () => {
  const p = await openApp(context, server.base);
  const seen = await dropFetched(p, ["big.puffin", SAMPLE], { whenDecoding: true });
  assert.ok(seen.done_bytes < seen.total_bytes, `dropped while decoding: ${JSON.stringify(seen)}`);
  await waitLoaded(p, SAMPLE);
  // The cancelled decode delivers nothing later.
  await p.waitForTimeout(1500);
  const s = await settled(p);
  assert.equal(s.a, SAMPLE);
  assert.equal(s.b, null);
  assert.equal(s.error, null);
  assert.equal(s.replaced, `big.puffin (A) was replaced by ${SAMPLE} before it finished loading`);
  assert.deepEqual(await p.evaluate(() => window.puffinLens.summary()), expected.sample);
  // Two files dropped together open as A and B, to compare.
  await dropFetched(p, ["big.puffin", SAMPLE]);
  // Each once read and decoded (the small one may be done while the big
  // one is still being read).
  await waitLoaded(p, SAMPLE, "b");
  await waitLoaded(p, "big.puffin", "a");
  const both = await settled(p);
  assert.equal(both.a, "big.puffin");
  assert.deepEqual(await p.evaluate(() => window.puffinLens.summary("a")), expected.big);
  await p.close();
});

await test("drops are honoured in the order made, whatever order their bytes arrive in", async () => {
  // A 33.6 MB recording, then 100 ms later the sample: the sample is shown
  // and stays shown (the big one's bytes, read later, are dropped or its
  // decode replaced).
  const p = await openApp(context, server.base);
  await dropFetched(p, ["big.puffin", SAMPLE], { apartMs: 100 });
  await waitLoaded(p, SAMPLE);
  await p.waitForTimeout(3000);
  const s = await settled(p);
  assert.equal(s.a, SAMPLE);
  assert.equal(s.b, null, "the earlier drop opens nothing");
  assert.match(s.replaced, /^big\.puffin \(A\) was replaced by threads_demo\.puffin(, asked for after it,)? before it finished loading$/);
  await p.close();
  // The other order: the sample, then the big one: the big one is shown.
  const q = await openApp(context, server.base);
  await dropFetched(q, [SAMPLE, "big.puffin"], { apartMs: 100 });
  await q.waitForFunction(() => {
    const s = window.puffinLens.status();
    return !s.loading && (s.shown === "a" ? s.a : s.b) === "big.puffin";
  }, null, { timeout: 120_000 });
  await q.waitForTimeout(1000);
  const t = await settled(q);
  assert.equal(t.shown === "a" ? t.a : t.b, "big.puffin");
  await q.close();
});

await test("a file dropped during a ?url= download cancels the download", async () => {
  const p = await openApp(context, `${server.base}?url=${encodeURIComponent(slowUrl)}`);
  await p.waitForFunction(() => window.puffinLens.status().fetching, null, { timeout: 30_000 });
  await p.waitForFunction(() => document.getElementById("load_progress_label").textContent.startsWith("Downloading big.puffin: 0.1 of"), null, {
    timeout: 30_000,
  });
  await dropFile(p, SAMPLE, sampleBytes);
  await waitLoaded(p, SAMPLE);
  const s = await settled(p);
  assert.equal(s.a, SAMPLE);
  assert.equal(s.error, null);
  assert.equal(s.replaced, `the download of ${slowUrl} (A) was cancelled: ${SAMPLE} replaced it`);
  // The browser dropped the connection (AbortController), not just the bytes.
  for (let i = 0; slow.closed < 1 && i < 100; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(slow.closed, slow.served, "the cancelled download's connection is closed");
  await p.close();
});

await test("two load() calls at once: the later wins, the first is rejected", async () => {
  const p = await openApp(context, server.base);
  const got = await p.evaluate(async () => {
    const bytes = async (n) => new Uint8Array(await (await fetch(`../recordings/${n}`)).arrayBuffer());
    const [big, small] = [await bytes("big.puffin"), await bytes("threads_demo.puffin")];
    const [first, second] = await Promise.allSettled([
      window.puffinLens.load(big, "first.puffin"),
      window.puffinLens.load(small, "second.puffin"),
    ]);
    return { first: first.status, why: first.reason && first.reason.message, second: second.status, summary: second.value };
  });
  assert.equal(got.first, "rejected");
  assert.equal(got.why, "first.puffin (A) was replaced by second.puffin before it finished loading");
  assert.equal(got.second, "fulfilled");
  assert.equal(got.summary.scopes, expected.sample.scopes);
  const s = await settled(p);
  assert.equal(s.a, "second.puffin");
  assert.equal(s.b, null);
  assert.equal(s.replaced, got.why);
  // With sides named, both load.
  const sides = await p.evaluate(async () => {
    const bytes = async (n) => new Uint8Array(await (await fetch(`../recordings/${n}`)).arrayBuffer());
    const [a, b] = await Promise.all([
      window.puffinLens.load(await bytes("big.puffin"), "big.puffin", "a"),
      window.puffinLens.load(await bytes("threads_demo.puffin"), "small.puffin", "b"),
    ]);
    return [a.scopes, b.scopes];
  });
  assert.deepEqual(sides, [expected.big.scopes, expected.sample.scopes]);
  const after = await settled(p);
  assert.equal(after.a, "big.puffin");
  assert.equal(after.b, "small.puffin");
  await p.close();
});

await test("query() while loading answers about what is shown, or says what is loading", async () => {
  const p = await openApp(context, server.base);
  const first = await p.evaluate(async () => {
    const bytes = new Uint8Array(await (await fetch("../recordings/big.puffin")).arrayBuffer());
    const loading = window.puffinLens.load(bytes, "big.puffin");
    let during;
    try {
      window.puffinLens.query("top", { top: 3 });
    } catch (e) {
      during = e.message;
    }
    await loading;
    return { during, after: window.puffinLens.query("top", { top: 3 }) };
  });
  assert.equal(first.during, "no recording is open yet: big.puffin is loading (await load()'s promise, or until status().loading is null)");
  assert.deepEqual(first.after, expected.bigTop);
  // big.puffin shown; the sample replaces it as A: while it loads, answers
  // are about big.puffin, which status() says is still shown.
  const replacing = await p.evaluate(async () => {
    const bytes = new Uint8Array(await (await fetch("../recordings/threads_demo.puffin")).arrayBuffer());
    const loading = window.puffinLens.load(bytes, "threads_demo.puffin", "a");
    const during = { top: window.puffinLens.query("top", { top: 3 }), status: window.puffinLens.status() };
    await loading;
    return { during, after: window.puffinLens.query("top", { top: 3 }) };
  });
  assert.deepEqual(replacing.during.top, expected.bigTop);
  assert.equal(replacing.during.status.a, "big.puffin");
  assert.deepEqual(replacing.after, expected.sampleTop);
  await settled(p);
  await p.close();
});

// `what`: a regular expression for what is too large.
const tooLarge = (name, what) =>
  new RegExp(
    `^${name}: too large to open in the browser: ${what}, and [0-9.]+ (B|[KMG]iB) of this tab's [0-9.]+ [MG]iB is free; ` +
      `open it in the desktop app \\(puffin-lens open ${name}\\) or analyze it with the command-line tool \\(puffin-lens summary ${name}\\)$`,
  );

await test("a recording too large for the wasm memory is refused before decoding; the one shown stays", async () => {
  const p = await openApp(context, server.base);
  await dropFile(p, SAMPLE, sampleBytes);
  await waitLoaded(p, SAMPLE);
  const before = await status(p);
  // 0.5 MB on disk, 150 M scopes: the estimate from the frames' metadata.
  await dropFetched(p, ["huge.puffin"]);
  await p.waitForFunction(() => window.puffinLens.status().error, null, { timeout: 30_000 });
  const s = await settled(p);
  assert.match(s.error, tooLarge("huge.puffin", "its 150,000,000 scopes \\(a [0-9.]+ KiB file\\) need about [0-9.]+ GiB decoded"));
  assert.equal(s.a, SAMPLE);
  assert.equal(s.b, null);
  assert.deepEqual(await p.evaluate(() => window.puffinLens.summary()), expected.sample);
  // Nothing of it was spent: the app holds what it held (give or take the file).
  assert.ok(s.memory.in_use_bytes < before.memory.in_use_bytes + 8e6, `${JSON.stringify(before.memory)} -> ${JSON.stringify(s.memory)}`);
  await p.waitForTimeout(300);
  await p.screenshot({ path: join(OUT, "too_large.png") });
  // The same through load(): rejected with that line.
  const why = await p.evaluate(async () => {
    const bytes = new Uint8Array(await (await fetch("../recordings/huge.puffin")).arrayBuffer());
    return window.puffinLens.load(bytes, "huge.puffin").then(() => "loaded", (e) => e.message);
  });
  assert.match(why, tooLarge("huge.puffin", "its 150,000,000 scopes \\(a [0-9.]+ KiB file\\) need about [0-9.]+ GiB decoded"));
  assert.equal((await settled(p)).a, SAMPLE);
  await p.close();
});

await test("with less memory (?memory_limit_mb=), files are refused by size before they are read", async () => {
  const mib = (bigSize / 2 ** 20).toFixed(1);
  // The sample fits; the 33.6 MB capture does not even fit to be read.
  const p = await openApp(context, `${server.base}?memory_limit_mb=16`);
  await dropFile(p, SAMPLE, sampleBytes);
  await waitLoaded(p, SAMPLE);
  await dropFetched(p, ["big.puffin"]);
  await p.waitForFunction(() => window.puffinLens.status().error, null, { timeout: 30_000 });
  const s = await settled(p);
  assert.match(s.error, tooLarge("big.puffin", `the file is ${mib} MiB`));
  assert.equal(s.memory.limit_bytes, 16 * 2 ** 20);
  assert.equal(s.a, SAMPLE);
  // load() given the File (as the installed app's launch handler does):
  // refused by its size, nothing of it read into the app's memory.
  const viaLoad = await p.evaluate(async () => {
    const blob = await (await fetch("../recordings/big.puffin")).blob();
    const before = window.puffinLens.status().memory.in_use_bytes;
    const why = await window.puffinLens
      .load(new File([blob], "big.puffin"), undefined, "b")
      .then(() => "loaded", (e) => e.message);
    return { why, grew: window.puffinLens.status().memory.in_use_bytes - before };
  });
  assert.match(viaLoad.why, tooLarge("big.puffin", `the file is ${mib} MiB`));
  assert.ok(viaLoad.grew < 1e6, `in use grew by ${viaLoad.grew} bytes`);
  assert.equal((await settled(p)).a, SAMPLE);
  // A download says so from its Content-Length, before reading the body.
  const q = await openApp(context, `${server.base}?memory_limit_mb=16&url=../recordings/big.puffin`);
  await q.waitForFunction(() => window.puffinLens.status().error, null, { timeout: 30_000 });
  const t = await settled(q);
  assert.match(t.error, tooLarge("big.puffin", `the file is ${mib} MiB`));
  assert.equal(t.a, null);
  // Read, but its 2 M scopes would not fit once decoded.
  const r = await openApp(context, `${server.base}?memory_limit_mb=120`);
  await dropFetched(r, ["big.puffin"]);
  await r.waitForFunction(() => window.puffinLens.status().error, null, { timeout: 30_000 });
  const u = await settled(r);
  assert.match(u.error, tooLarge("big.puffin", `its ${expected.big.scopes.toLocaleString("en-US")} scopes \\(a ${mib} MiB file\\) need about [0-9.]+ MiB decoded`));
  await p.close();
  await q.close();
  await r.close();
});

await test("a device that reports little memory (navigator.deviceMemory) gets half of it as the limit", async () => {
  const small = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  // A 256 MB device, as navigator.deviceMemory would say (GB).
  await small.addInitScript(() => Object.defineProperty(Navigator.prototype, "deviceMemory", { get: () => 0.25 }));
  const p = await openApp(small, server.base);
  assert.equal(await p.evaluate(() => navigator.deviceMemory), 0.25);
  assert.equal((await status(p)).memory.limit_bytes, 128 * 2 ** 20);
  // The sample fits; a 2 M-scope capture does not, once decoded.
  await dropFile(p, SAMPLE, sampleBytes);
  await waitLoaded(p, SAMPLE);
  await dropFetched(p, ["big.puffin"]);
  await p.waitForFunction(() => window.puffinLens.status().error, null, { timeout: 30_000 });
  const s = await settled(p);
  assert.match(s.error, tooLarge("big.puffin", `its ${expected.big.scopes.toLocaleString("en-US")} scopes \\(a [0-9.]+ MiB file\\) need about [0-9.]+ MiB decoded`));
  assert.equal(s.a, SAMPLE);
  // ?memory_limit_mb= sets the limit whatever the device says.
  const q = await openApp(small, `${server.base}?memory_limit_mb=300`);
  assert.equal((await status(q)).memory.limit_bytes, 300 * 2 ** 20);
  await p.close();
  await q.close();
  await small.close();
});

await test("two recordings that each fit but not together: the second to decode is refused", async () => {
  // 300 MB: room for one 2 M-scope capture (about 160 MB decoded), not two;
  // both download at once, and the room promised to the first decode counts.
  const p = await openApp(context, `${server.base}?memory_limit_mb=300&url=../recordings/big.puffin&b=../recordings/big2.puffin`);
  await p.waitForFunction(() => {
    const s = window.puffinLens.status();
    return s.error && !s.loading && !s.fetching && (s.a || s.b);
  }, null, { timeout: 120_000, polling: 50 });
  const s = await settled(p);
  const [shown, refused] = s.a ? ["big.puffin", "big2.puffin"] : ["big2.puffin", "big.puffin"];
  assert.equal(s.a || s.b, shown);
  assert.equal(s.a && s.b, null, `one of them only: ${JSON.stringify(s)}`);
  assert.match(s.error, tooLarge(refused.replace(".", "\\."), `its ${expected.big.scopes.toLocaleString("en-US")} scopes \\(a [0-9.]+ MiB file\\) need about [0-9.]+ MiB decoded`));
  assert.ok(s.memory.in_use_bytes < 300 * 2 ** 20, JSON.stringify(s.memory));
  await p.close();
});

await browser.close();
server.stop();
slowServer.close();
slowServer.closeAllConnections();
finish();
