// Native unit tests: `cd plugins/js && node --test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Context, ToolCall, ToolInfo } from '../toolvet-check/index.js';
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
