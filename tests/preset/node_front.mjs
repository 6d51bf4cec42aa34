// The Node front end of the preset test (test_preset.py): loads the
// policy with the @toolvet/node package, as a user's program would
// (`Host.fromFile`), runs the steps it is given and prints what each
// answered.
//
//   node node_front.mjs POLICY < steps.json > answers.json
//
// The package is $TOOLVET_NODE_PKG (default crates/toolvet-node, built by
// `npm run build`). steps.json is a JSON array of steps:
//   {"op": "check", "call": {...}, "context": {...}}    -> the verdict
//   {"op": "resume", "ticket": "...", "call": {...}, "context": {...}}
//   {"op": "approval", "id": "apr_..."}                  -> the request
// A step that throws answers {"error": {"name", "kind", "message"}}.

import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';

const root = resolve(fileURLToPath(import.meta.url), '../../..');
const pkg = process.env.TOOLVET_NODE_PKG ?? join(root, 'crates/toolvet-node');
const { Host } = await import(pathToFileURL(join(pkg, 'dist/ts/index.js')).href);

const steps = JSON.parse(readFileSync(0, 'utf8'));
const host = await Host.fromFile(process.argv[2]);

async function run(step) {
  switch (step.op) {
    case 'check':
      return host.check(step.call, undefined, step.context);
    case 'resume':
      return host.resume(step.ticket, step.call, undefined, step.context);
    case 'approval':
      return host.approval(step.id);
    default:
      throw new Error(`unknown step ${step.op}`);
  }
}

const answers = [];
for (const step of steps) {
  try {
    answers.push(await run(step));
  } catch (e) {
    answers.push({ error: { name: e.name, kind: e.kind ?? null, message: String(e.message) } });
  }
}
process.stdout.write(JSON.stringify(answers));
