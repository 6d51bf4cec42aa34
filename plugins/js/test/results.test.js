// Unit tests of the JavaScript kit's result checks (contract 0.2):
// `cd plugins/js && node --test`. What the host does with them:
// host-results.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Check, Context, Label, ResultDecision, ResultError, ToolCall, ToolInfo, ToolResult, abstainResult, allow, allowResult,
  deny, exportCheck, hostMasks, pointer, redact, span, vetResult, withhold,
} from '../toolvet-check/index.js';

class Answers extends Check {
  static name = 'answers';
  check() {
    return allow();
  }
  checkResult() {
    return this.answer;
  }
}

const vetted = (answer, result, call = new ToolCall('fetch')) => {
  const check = Answers.fromSettingsJson('{}');
  check.answer = answer;
  return vetResult(check, call, new ToolInfo(), new Context(), result);
};

test('result decisions', () => {
  assert.equal(allowResult().kind, 'allow');
  assert.deepEqual(abstainResult([new Label('seen')]).labels, [new Label('seen')]);
  const w = withhold('x.y', 'withheld because');
  assert.deepEqual([w.kind, w.rule, w.message], ['withhold', 'x.y', 'withheld because']);
  assert.deepEqual(redact(span(0, 1, 'k')).masks, [span(0, 1, 'k')]);
  assert.throws(() => withhold('x.y', ''), /a withhold needs a message/);
  assert.throws(() => redact([]), /at least one mask/);
  assert.throws(() => allowResult(Array.from({ length: 17 }, (_, i) => new Label(`l${i}`))), /17 labels, over 16/);
  assert.ok(Answers.vetsResults());
  assert.ok(!Check.vetsResults());
});

test("labels follow the host's rules", () => {
  assert.deepEqual(new Label('secret-seen', ['a', 'b']).values, ['a', 'b']);
  assert.throws(() => new Label('Secret'), /lowercase ASCII/);
  assert.throws(() => new Label(''), /lowercase ASCII/);
  assert.throws(() => new Label('a'.repeat(65)), /lowercase ASCII/);
  assert.throws(() => new Label('a', Array(33).fill('v')), /33 values, over 32/);
  assert.throws(() => new Label('a', ['\u00e9'.repeat(257)]), /values\[0\] is over 512 bytes/);
});

test('spans are UTF-8 byte offsets of string indices', () => {
  const text = 'h\u00e9llo \u{1f600} SECRET-42 \u00e9';
  const i = text.indexOf('SECRET');
  const d = vetted(redact([span(i, i + 9, 'secret'), span(0, 1, 'x')]), ToolResult.text(text));
  // h(1) é(2) llo (4) 😀(4) space(1): the secret starts at byte 12.
  assert.deepEqual(d.hostMasks, [
    { target: { tag: 'span', val: [12, 21] }, kind: 'secret' },
    { target: { tag: 'span', val: [0, 1] }, kind: 'x' },
  ]);
  assert.equal(Buffer.from(text).subarray(12, 21).toString(), 'SECRET-42');
});

test('pointers resolve in the JSON', () => {
  const result = ToolResult.json('{"rows": [{"a/b": "x", "t~": "y"}], "n": 1}');
  assert.deepEqual(result.strings(), [['/rows/0/a~1b', 'x'], ['/rows/0/t~0', 'y']]);
  const d = vetted(redact([...result.strings().map(([at]) => pointer(at, 'k')), pointer('/n', 'k')]), result);
  assert.deepEqual(d.hostMasks.map((m) => m.target.val), ['/rows/0/a~1b', '/rows/0/t~0', '/n']);
});

test('masks the host would refuse are errors', () => {
  const text = ToolResult.text('a\u{1f600}c');
  const rows = ToolResult.json('{"rows": [1]}');
  for (const [masks, result, message] of [
    [[span(1, 1, 'k')], text, /span 1\.\.1 is empty or outside the text's 4 code units/],
    [[span(2, 5, 'k')], text, /outside/],
    [[span(0, 2, 'k')], text, /cuts a character in two at 2/],
    [[span(0, 1, 'two words')], text, /a mask's kind is 1-64 ASCII/],
    [[pointer('/rows', 'k')], text, /a pointer mask on a text result/],
    [[span(0, 1, 'k')], rows, /a span mask on a JSON result/],
    [[pointer('', 'k')], rows, /not a JSON Pointer inside the value/],
    [[pointer('/rows/1', 'k')], rows, /does not resolve/],
    [[pointer('/rows/01', 'k')], rows, /does not resolve/],
    [Array(4097).fill(span(0, 1, 'k')), text, /4097 masks, over 4096/],
  ]) {
    assert.throws(() => hostMasks(result, masks), (e) => e instanceof ResultError && message.test(e.message), String(message));
  }
  assert.throws(() => vetted(allow(), ToolResult.text('x')), /checkResult\(\) must return a ResultDecision/);
});

test('control characters: any in a result, none in its call', () => {
  assert.equal(vetted(allowResult(), ToolResult.text('a\x1b[31mred\x00 x\r y')).kind, 'allow');
  const d = vetted(allowResult(), ToolResult.text('x'), new ToolCall('fetch', '{"u": "a\\u0000b"}'));
  assert.deepEqual([d.kind, d.rule], ['withhold', 'input.control-character']);
  assert.match(d.message, /`arguments\.u` holds the control character \\x00 \(NUL\) at byte 1/);
});

test('the export answers results in the WIT shape, with the run labels and facts read', () => {
  class Seen extends Check {
    static name = 'seen';
    check(_call, tool, ctx) {
      const f = tool.facts;
      const seen = { effects: [...f.effects], protected: f.protectedTarget, roles: f.roles, source: f.source, labels: ctx.labels };
      return deny('seen.what', JSON.stringify(seen));
    }
    checkResult(_call, _tool, ctx, result) {
      return ctx.hasLabel('untrusted-content') ? withhold('seen.steered', 'no', [new Label('again', ['v'])]) : redact(span(0, 1, 'k'));
    }
  }
  const exported = exportCheck(Seen);
  exported.configure('{}');
  const call = { id: 'c', name: 'fetch', arguments: '{}' };
  const tool = {
    requiresApproval: false, tags: [],
    facts: { effects: { read: true, outboundMessage: true, deploy: false }, irreversible: false, protectedTarget: true,
      roles: [{ role: 'url', pointer: '/u', value: 'https://x.test' }], source: { tag: 'inferred', val: ['name verb: fetch'] } },
  };
  const labelled = { history: [], attributes: [], labels: [{ label: { name: 'untrusted-content', values: ['a@x.test'] }, callId: 'c0', tool: 'fetch', check: 'r' }] };
  const seen = exported.check(call, tool, labelled);
  assert.deepEqual(JSON.parse(seen.val.message), {
    effects: ['read', 'outbound-message'],
    protected: true,
    roles: [{ role: 'url', pointer: '/u', value: 'https://x.test', dialect: null }],
    source: { tag: 'inferred', val: ['name verb: fetch'] },
    labels: [{ name: 'untrusted-content', values: ['a@x.test'], callId: 'c0', tool: 'fetch', check: 'r' }],
  });
  assert.deepEqual(
    exported.checkResult(call, tool, labelled, { content: { tag: 'text', val: '\u00e9x' }, isError: false }),
    { action: { tag: 'withhold', val: { message: 'no', rule: 'seen.steered' } }, labels: [{ name: 'again', values: ['v'] }] },
  );
  assert.deepEqual(
    exported.checkResult(call, tool, { history: [], attributes: [] }, { content: { tag: 'text', val: '\u00e9x' }, isError: false }),
    { action: { tag: 'redact', val: [{ target: { tag: 'span', val: [0, 2] }, kind: 'k' }] }, labels: [] },
  );
  assert.ok(!('checkResult' in exportCheck(class extends Check { static name = 'calls'; check() { return allow(); } })));
  assert.ok(ResultDecision);
});
