// Native unit tests: `cd plugins/js && node --test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Context, ToolCall, ToolInfo } from '../toolvet-check/index.js';
// results: begin
import { ToolResult, vetResult } from '../toolvet-check/index.js';
// results: end
import { Template } from './template.js';

const run = (check, args) => check.check(new ToolCall('run', JSON.stringify(args)), new ToolInfo(), new Context());

test('blocks words in nested strings, ignoring case', () => {
  const check = Template.fromSettingsJson('{"blocked_words": ["rm -rf"]}');
  assert.equal(run(check, { steps: [{ cmd: 'RM -RF /tmp/x' }] }).rule, 'template.blocked-word');
  assert.equal(run(check, { cmd: 'ls' }).kind, 'allow');
});

test('case_sensitive', () => {
  const check = Template.fromSettingsJson('{"blocked_words": ["DROP"], "case_sensitive": true}');
  assert.equal(run(check, { q: 'drop' }).kind, 'allow');
});

test('an empty word is a settings error naming the key', () => {
  assert.throws(() => Template.fromSettingsJson('{"blocked_words": [" "]}'), /^SettingsError: settings\.blocked_words\[0\]: must not be empty$/);
});
// results: begin

test('masks blocked words in results', () => {
  const check = Template.fromSettingsJson('{"blocked_words": ["drop table"]}');
  const vetted = (result) => vetResult(check, new ToolCall('read_log'), new ToolInfo(), new Context(), result);
  // vetResult is what the host sees: masks as UTF-8 byte spans.
  const text = vetted(ToolResult.text('caf\u00e9: DROP TABLE users'));
  assert.equal(text.kind, 'redact');
  assert.deepEqual(text.hostMasks, [{ target: { tag: 'span', val: [7, 17] }, kind: 'blocked-word' }]);
  assert.deepEqual(text.labels.map((l) => l.name), ['blocked-word-seen']);
  const rows = vetted(ToolResult.json('{"rows": [{"sql": "drop table users"}, {"sql": "select 1"}]}'));
  assert.deepEqual(rows.hostMasks, [{ target: { tag: 'pointer', val: '/rows/0/sql' }, kind: 'blocked-word' }]);
  assert.equal(vetted(ToolResult.text('all fine')).kind, 'allow');
});
// results: end
