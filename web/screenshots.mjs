// The README's pictures, taken from the built site (dist/) as the browser
// tests drive it: the planted game loop of tests/common/planted.rs (B: one
// scope slower per call, one run twice as often, a new one, a spike) in the
// findings, the flame graph and the diff's table. scripts/screenshots.sh writes the
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
const server = await serve({ "before.puffin": before, "after.puffin": after });
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
const page = await openApp(context, `${server.base}?url=../recordings/before.puffin&b=../recordings/after.puffin`);
await waitLoaded(page, "after.puffin", "b");
await waitLoaded(page, "before.puffin", "a");
const show = (view, options) => page.evaluate(({ view, options }) => window.puffinLens.show(view, options), { view, options });
await page.waitForFunction(() => window.puffinLens.ui()?.view === "findings");
// The findings: the report's judged investigation, each name a link.
await show("findings");
await page.waitForFunction(() => window.puffinLens.ui().computing === false);
await page.waitForTimeout(500);
await page.screenshot({ path: join(out, "findings.png") });
// The same page on a larger screen.
await page.setViewportSize({ width: 1920, height: 1080 });
await page.waitForTimeout(500);
await page.screenshot({ path: join(out, "findings_1920.png") });
await page.setViewportSize({ width: 1280, height: 720 });
await page.waitForTimeout(300);
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
