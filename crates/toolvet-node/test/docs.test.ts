// docs/node.md shows each example file verbatim and the output it prints:
// both are checked here, by comparing the text and running the example.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from './support.js';

const crate = join(repoRoot, 'crates', 'toolvet-node');
const doc = readFileSync(join(repoRoot, 'docs', 'node.md'), 'utf8');

/** The fenced block after each `<!-- kind: path -->` marker, by path. */
function blocks(kind: 'example' | 'output'): Map<string, string> {
  const found = new Map<string, string>();
  const marker = new RegExp(`<!-- ${kind}: (\\S+) -->\\s*\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\``, 'g');
  for (const [, path, body] of doc.matchAll(marker)) {
    found.set(path as string, body as string);
  }
  return found;
}

const normalize = (text: string) => text.replace(/apr_[0-9a-f]{32}/g, 'apr_…').trimEnd();
const examples = blocks('example');
const outputs = blocks('output');

test('docs/node.md has an example and its output for every framework', () => {
  assert.deepEqual([...examples.keys()].sort(), ['examples/adk.ts', 'examples/ai-sdk.ts', 'examples/openai-agents.ts']);
  assert.deepEqual([...outputs.keys()].sort(), [...examples.keys()].sort());
});

for (const [path, shown] of examples) {
  test(`docs/node.md shows ${path} as it is, and it prints what the doc says`, () => {
    assert.equal(shown, readFileSync(join(crate, path), 'utf8'), `${path} differs from docs/node.md`);
    const compiled = join(crate, 'dist', path.replace(/\.ts$/, '.js'));
    const printed = execFileSync(process.execPath, [compiled], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(normalize(printed), normalize(outputs.get(path) ?? ''));
  });
}
