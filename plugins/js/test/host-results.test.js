// A result check built with the JavaScript kit, through the real host: the
// fixture plugins/js/fixtures/js-results-check is built for contract 0.2
// (`result-plugin`) and run by `toolvet check-result` and `toolvet check` on
// the cases of plugins/kit-results-cases.json (shared with the Python kit's
// test). Runs when $TOOLVET names the CLI (`make kit-tests` sets it); the
// build goes to target/kit-tests/js/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..', '..');
const TOOLVET = process.env.TOOLVET;

test('result checks through the real host', { skip: !TOOLVET && 'set $TOOLVET to the toolvet CLI (make kit-tests does)' }, async (t) => {
  const out = join(REPO, 'target', 'kit-tests', 'js');
  execFileSync(process.execPath, [join(HERE, '..', 'build.mjs'), '--out-dir', out, join(HERE, '..', 'fixtures', 'js-results-check')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tmp = mkdtempSync(join(tmpdir(), 'toolvet-kit-results-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const policy = join(tmp, 'policy.toml');
  writeFileSync(policy, `[[check]]\nname = "results"\nplugin = ${JSON.stringify(join(out, 'js_results_check.wasm'))}\n`);
  const { cases } = JSON.parse(readFileSync(join(REPO, 'plugins', 'kit-results-cases.json'), 'utf8'));
  const verdicts = new Map();
  for (const c of cases) {
    await t.test(c.name, () => {
      const request = c.input;
      if (c.labels_from) request.context.labels = verdicts.get(c.labels_from).labels;
      const done = spawnSync(TOOLVET, [c.command, '--config', policy], { input: JSON.stringify(request), encoding: 'utf8' });
      assert.equal(done.status, c.exit, `${done.stdout}\n${done.stderr}`);
      const verdict = JSON.parse(done.stdout);
      verdicts.set(c.name, verdict);
      for (const [key, value] of Object.entries(c.expect)) assert.deepEqual(verdict[key], value, key);
    });
  }
});
