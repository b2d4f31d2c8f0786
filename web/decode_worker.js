// puffin-lens decode worker (module worker, started by the page's pool:
// src/app/platform/web/workers.rs). It runs the app's own wasm, sent by the
// page already compiled, and decodes runs of a recording's records into
// fragments (src/engine/read/fragment.rs) that go back as transferred bytes.
//
// page -> worker: {id: 0, init: {script, module}} once, then
//                 {id, bytes: ArrayBuffer, len, base, record, out?} (the run: the first
//                 len bytes; out: a fragment's buffer given back to write in);
//                 or {id, findings: {a: [ArrayBuffer], b: [ArrayBuffer] | null, name_a, name_b,
//                 paired}} (the findings of side a against b, each its runs' files, decoded
//                 here; judged as paired runs when paired);
// worker -> page: {id: 0, ready: true} | {id, out: ArrayBuffer, len, bytes, ms} | {id, json}
//                 (the findings, engine::report::Findings as JSON) | {id, error}
//                 (the fragment: out's first len bytes; bytes: the run's buffer given
//                 back; ms: the worker's time on the run).
let ready = null;

self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.init) {
    // The app's JavaScript module, from the same origin (precached by the
    // service worker); its start sees no window and installs
    // puffinLensDecodeRun instead of the app.
    ready = import(msg.init.script).then((m) => m.default({ module_or_path: msg.init.module }));
    try {
      await ready;
      if (typeof self.puffinLensDecodeRun !== "function") throw new Error("the module has no decoder");
      self.postMessage({ id: msg.id, ready: true });
    } catch (err) {
      self.postMessage({ id: msg.id, error: `cannot start: ${err}` });
    }
    return;
  }
  try {
    await ready;
    if (msg.findings) {
      // The findings of a (against b): both decoded here, then reported.
      const f = msg.findings;
      const json = self.puffinLensFindings(f.a, f.b, f.name_a, f.b ? f.name_b : null, !!f.paired);
      self.postMessage({ id: msg.id, json });
      return;
    }
    const t0 = performance.now();
    // The fragment lands in `msg.out` (a buffer the page gave back) when it fits.
    const out = self.puffinLensDecodeRun(new Uint8Array(msg.bytes, 0, msg.len), msg.base, msg.record, msg.out);
    // The run's buffer goes back too, for the page to fill again.
    self.postMessage(
      { id: msg.id, out: out.buffer, len: out.length, bytes: msg.bytes, ms: performance.now() - t0 },
      [out.buffer, msg.bytes],
    );
  } catch (err) {
    self.postMessage({ id: msg.id, error: String(err) });
  }
};
