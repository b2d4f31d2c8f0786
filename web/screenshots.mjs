// The README's pictures, taken from the built site (dist/) as the browser
// tests drive it: the example pair (samples/, Try an example) on its
// findings at 1280x720 and 1920x1080; the planted game loop of
// tests/common/planted.rs (B: one scope slower per call, one run twice as
// often, a new one, a spike) in the flame graph and the diff's table. scripts/screenshots.sh writes the
// recordings first and optimizes the PNGs into docs/images/.
//
// Usage: node web/screenshots.mjs BEFORE.puffin AFTER.puffin OUT_DIR
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launch, openApp, serve, waitLoaded } from "./harness.mjs";

const [before, after, out] = process.argv.slice(2);
if (!out) {
  console.error("usage: node web/screenshots.mjs BEFORE.puffin AFTER.puffin OUT_DIR");
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const samples = new URL("../samples/", import.meta.url).pathname;
const server = await serve({
  "before.puffin": before,
  "after.puffin": after,
  "example_before.puffin": join(samples, "example_before.puffin"),
  "example_after.puffin": join(samples, "example_after.puffin"),
});
const browser = await launch();
// The example pair (Try an example: a vsync loop whose B has a slower
// solver and an autosave every 10th frame that misses its slot) on its
// findings, with its frame pacing, at 1280x720 and 1920x1080.
for (const [w, h, name] of [[1280, 720, "findings.png"], [1920, 1080, "findings_1920.png"]]) {
  const ctx = await browser.newContext({ viewport: { width: w, height: h } });
  const p = await openApp(ctx, `${server.base}?url=../recordings/example_before.puffin&b=../recordings/example_after.puffin`);
  await waitLoaded(p, "example_after.puffin", "b");
  await waitLoaded(p, "example_before.puffin", "a");
  await p.waitForFunction(() => window.puffinLens.ui()?.view === "findings" && window.puffinLens.ui().computing === false, null, { timeout: 120_000 });
  await p.waitForTimeout(800);
  await p.screenshot({ path: join(out, name) });
  await ctx.close();
}
const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
const page = await openApp(context, `${server.base}?url=../recordings/before.puffin&b=../recordings/after.puffin`);
await waitLoaded(page, "after.puffin", "b");
await waitLoaded(page, "before.puffin", "a");
const show = (view, options) => page.evaluate(({ view, options }) => window.puffinLens.show(view, options), { view, options });
await page.waitForFunction(() => window.puffinLens.ui()?.view === "findings");
await page.waitForFunction(() => window.puffinLens.ui().computing === false);
// The diff table: each row judged (slower, more often, new, spike, ...).
await show("diff", { mode: "table", sort: "delta", normalize: "per-frame", filter: "", hide_below: 0 });
await page.waitForFunction(() => window.puffinLens.ui().building === null);
await page.waitForTimeout(500);
await page.screenshot({ path: join(out, "diff.png") });
// The flame graph of the main thread, a scope's details beside it.
await page.evaluate(() => window.puffinLens.select("physics::solve_contacts"));
await show("flame", { thread: "main", frame: null, focus: null, order: "heavy" });
await page.waitForTimeout(500);
await page.screenshot({ path: join(out, "flame.png") });
// One recording's page: its headline and picture.
for (const [w, h, name] of [[1280, 720, "findings_one.png"], [1920, 1080, "findings_one_1920.png"]]) {
  const one = await browser.newContext({ viewport: { width: w, height: h } });
  const p = await openApp(one, `${server.base}?url=../recordings/after.puffin`);
  await waitLoaded(p, "after.puffin", "a");
  await p.evaluate(() => window.puffinLens.show("findings"));
  await p.waitForFunction(() => window.puffinLens.ui().computing === false);
  await p.waitForTimeout(500);
  await p.screenshot({ path: join(out, name) });
  await one.close();
}
await browser.close();
server.stop();
console.log(`screenshots in ${out}`);
