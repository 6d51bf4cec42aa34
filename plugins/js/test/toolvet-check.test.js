// Unit tests of the JavaScript kit: `cd plugins/js && node --test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ArgumentsError, Check, Context, DecodeError, PriorCall, SettingsError, ToolCall, abstain, allow, decode, deny, escalate,
  WARM_UP_TEXT, exportCheck, globMatcher, stringsIn, strongest, t, warmUpWith,
} from '../toolvet-check/index.js';

const fields = {
  name: t.string('x'),
  count: t.integer(1, { min: 0, max: 5 }),
  mode: t.oneOf(['deny', 'escalate'], 'deny'),
  tags: t.list(t.string(), ['a']),
  limit: t.optional(t.number()),
  nested: t.record(t.object({ hard: t.number(), soft: t.number(0) }), {}),
  required: t.boolean(),
};

const errorOf = (fn, type = DecodeError) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof type, `not a ${type.name}: ${e}`);
    return e.message;
  }
  assert.fail('no error');
};

test('decode fills defaults and decodes nested values', () => {
  assert.deepEqual(decode(fields, { required: true }, 'settings'), {
    name: 'x', count: 1, mode: 'deny', tags: ['a'], limit: null, nested: {}, required: true,
  });
  const got = decode(fields, { required: false, limit: 2.5, nested: { USD: { hard: 10 } }, tags: [] }, 'settings');
  assert.deepEqual(got.nested, { USD: { hard: 10, soft: 0 } });
  assert.equal(got.limit, 2.5);
  assert.deepEqual(got.tags, []);
});

test('defaults are copies, not shared', () => {
  const a = decode(fields, { required: true }, 's');
  a.tags.push('mutated');
  assert.deepEqual(decode(fields, { required: true }, 's').tags, ['a']);
});

test('decode errors name the path', () => {
  const cases = [
    [{}, 'settings.required: missing required key'],
    [{ required: true, nmae: 1 }, 'settings.nmae: unknown key (known keys: count, limit, mode, name, nested, required, tags)'],
    [{ required: 'yes' }, 'settings.required: expected a boolean, got string "yes"'],
    [{ required: true, count: 1.5 }, 'settings.count: expected an integer, got number 1.5'],
    [{ required: true, count: 9 }, 'settings.count: must be at most 5 (got 9)'],
    [{ required: true, mode: 'warn' }, 'settings.mode: expected one of "deny", "escalate", got string "warn"'],
    [{ required: true, tags: ['a', 2] }, 'settings.tags[1]: expected a string, got number 2'],
    [{ required: true, nested: { EUR: { soft: 1 } } }, 'settings.nested.EUR.hard: missing required key'],
    [{ required: true, nested: { EUR: { hard: '10' } } }, 'settings.nested.EUR.hard: expected a number, got string "10"'],
  ];
  for (const [value, message] of cases) assert.equal(errorOf(() => decode(fields, value, 'settings')), message);
});

test('tool call arguments', () => {
  const call = new ToolCall('send', '{"to": ["a@x.com"], "n": 3}');
  assert.deepEqual(call.json.to, ['a@x.com']);
  assert.equal(call.str('to'), null);
  assert.equal(call.get('n'), 3);
  assert.equal(call.get('missing', 'd'), 'd');
  assert.deepEqual(call.args({ to: t.list(t.string()), n: t.integer() }), { to: ['a@x.com'], n: 3 });
  assert.equal(
    errorOf(() => call.args({ to: t.string(), n: t.integer() }), ArgumentsError),
    'arguments.to: expected a string, got an array',
  );
  assert.deepEqual(new ToolCall('x', 'not json').json, {});
  assert.deepEqual(new ToolCall('x', '[1]').json, {});
});

test('unknown argument keys are skipped unless strict', () => {
  const fields = { to: t.list(t.object({ address: t.string() })), amount: t.optional(t.number()) };
  const call = new ToolCall('send', '{"to": [{"address": "a@x.com", "name": "A"}], "subject": "hi"}');
  assert.deepEqual(call.args(fields), { to: [{ address: 'a@x.com' }], amount: null });
  assert.equal(
    errorOf(() => call.args(fields, { strict: true }), ArgumentsError),
    'arguments.subject: unknown key (known keys: amount, to)',
  );
  const nested = new ToolCall('send', '{"to": [{"address": "a@x.com", "name": "A"}]}');
  assert.equal(
    errorOf(() => nested.args(fields, { strict: true }), ArgumentsError),
    'arguments.to[0].name: unknown key (known keys: address)',
  );
  // Skipping unknown keys never relaxes the types of known ones.
  assert.equal(
    errorOf(() => new ToolCall('send', '{"to": "a@x.com", "extra": 1}').args(fields), ArgumentsError),
    'arguments.to: expected an array, got string "a@x.com"',
  );
});

test('settings errors are SettingsErrors, strict at every depth', () => {
  class Nested extends Check {
    static name = 'nested';
    static settings = { limits: t.record(t.object({ hard: t.number() }), {}) };
    check() {
      return allow();
    }
  }
  assert.equal(
    errorOf(() => Nested.fromSettingsJson('{"limits": {"USD": {"hard": 1, "sfot": 2}}}'), SettingsError),
    'settings.limits.USD.sfot: unknown key (known keys: hard)',
  );
  // A type's own decode is strict unless told otherwise, as a
  // constructor decoding nested settings with it expects.
  assert.equal(
    errorOf(() => t.object({ a: t.number() }).decode({ a: 1, typo: 2 }, 'settings.x')),
    'settings.x.typo: unknown key (known keys: a)',
  );
  assert.equal(
    errorOf(() => t.list(t.object({ a: t.number() })).decode([{ a: 1, typo: 2 }], 'settings.xs')),
    'settings.xs[0].typo: unknown key (known keys: a)',
  );
  assert.equal(String(new SettingsError('x')), 'SettingsError: x');
  assert.equal(String(new ArgumentsError('y')), 'ArgumentsError: y');
});

test('context and prior calls', () => {
  const ctx = new Context({ attributes: [['cwd', '/a'], ['cwd', '/b']], history: [new PriorCall('pay', '{}', 'approved')] });
  assert.equal(ctx.attribute('cwd'), '/a');
  assert.equal(ctx.attribute('user'), null);
  assert.equal(ctx.history[0].ran, true);
  assert.deepEqual(['allowed', 'denied', 'escalated', 'approved', 'rejected'].map((o) => new PriorCall('x', '{}', o).ran),
    [true, false, false, true, false]);
});

test('decisions', () => {
  const d = deny('a.b', 'no');
  assert.deepEqual([d.kind, d.rule, d.message], ['deny', 'a.b', 'no']);
  assert.throws(() => deny('a.b', ''), TypeError);
  const e1 = escalate('a.1', 'm');
  assert.equal(strongest(allow(), e1, escalate('a.2', 'm')), e1);
  assert.equal(strongest(e1, d, allow()).kind, 'deny');
  assert.equal(strongest(), abstain());
});

test('globMatcher is whole-string and case-insensitive', () => {
  const m = globMatcher(['send_*', 'id_rsa*', 'a?c', '*.env']);
  assert.ok(m('SEND_email'));
  assert.ok(m('id_rsa.pub'));
  assert.ok(m('abc'));
  assert.ok(m('prod.env'));
  assert.ok(!m('resend_email'));
  assert.ok(!m('abbc'));
  assert.ok(!m('prod.envy'));
  assert.ok(globMatcher(['a.b'])('A.B') && !globMatcher(['a.b'])('axb'));
});

test('stringsIn walks nested values with paths', () => {
  assert.deepEqual(stringsIn({ a: 'x', b: [{ c: 'y' }, 3, 'z'] }), [['a', 'x'], ['b[0].c', 'y'], ['b[2]', 'z']]);
});

class Words extends Check {
  static name = 'words';
  static settings = { words: t.list(t.string(), ['secret']) };
  constructor(settings) {
    super(settings);
    settings.words.forEach((w, i) => {
      if (!w) throw new SettingsError(`settings.words[${i}]: must not be empty`);
    });
  }
  check(call) {
    const w = this.settings.words.find((x) => call.arguments.includes(x));
    return w ? deny('words.blocked', `contains ${w}`) : allow();
  }
}

test('Check.fromSettingsJson', () => {
  assert.deepEqual(Words.fromSettingsJson('').settings.words, ['secret']);
  assert.equal(Words.fromSettingsJson('{"words": ["x"]}').check(new ToolCall('t', '{"a":"x"}')).rule, 'words.blocked');
  assert.equal(errorOf(() => Words.fromSettingsJson('{"words": [""]}')), 'settings.words[0]: must not be empty');
  assert.equal(errorOf(() => Words.fromSettingsJson('[]')), 'settings: expected a JSON object');
  assert.match(errorOf(() => Words.fromSettingsJson('{oops')), /^settings: not valid JSON/);
  assert.deepEqual(Words.info(), { name: 'words', version: '0.1.0', description: '', tools: ['*'], roles: [], effects: [] });
});

test('describe sends the roles and effects a check routes by (contract 0.2)', () => {
  const noEffects = { read: false, write: false, delete: false, execute: false, outboundMessage: false, payment: false, publish: false, permissionChange: false, deploy: false };
  assert.deepEqual(exportCheck(Words).describe(), { name: 'words', version: '0.1.0', description: '', tools: ['*'], roles: [], effects: noEffects });
  class Mail extends Check {
    static name = 'mail';
    static tools = ['send_*'];
    static roles = ['recipient', 'outbound-content', 'recipient'];
    static effects = ['outbound-message', 'permission-change'];
    check() {
      return allow();
    }
  }
  assert.deepEqual(Mail.info().roles, ['recipient', 'outbound-content']);
  const described = exportCheck(Mail).describe();
  assert.deepEqual(described.tools, ['send_*']);
  // Roles as the WIT's enum names; effects as its flags, every flag present.
  assert.deepEqual(described.roles, ['recipient', 'outbound-content']);
  assert.deepEqual(described.effects, { ...noEffects, outboundMessage: true, permissionChange: true });
});

test('an unknown role or effect is an error naming the check and the name', () => {
  const withRouting = (roles, effects) =>
    class Bad extends Check {
      static name = 'bad-routes';
      static roles = roles;
      static effects = effects;
      check() {
        return allow();
      }
    };
  const message = (fn) => {
    try {
      fn();
    } catch (e) {
      return typeof e === 'string' ? e : e.message;
    }
    assert.fail('no error');
  };
  const badEffect = withRouting([], ['read', 'sends']);
  assert.equal(
    message(() => badEffect.info()),
    'bad-routes: static effects[1] is the unknown effect "sends"; known effects: read, write, delete, execute, outbound-message, payment, publish, permission-change, deploy',
  );
  // At build (exportCheck), and natively wherever the check is made.
  assert.match(message(() => exportCheck(badEffect)), /^bad-routes: static effects\[1\] is the unknown effect "sends"/);
  assert.match(message(() => badEffect.fromSettingsJson('{}')), /unknown effect "sends"/);
  const badRole = withRouting(['shell_command'], []);
  assert.match(message(() => badRole.info()), /^bad-routes: static roles\[0\] is the unknown role "shell_command"; known roles: shell-command, /);
  assert.match(message(() => withRouting([], 'outbound-message').info()), /^bad-routes: `static effects` must be an array of effect names/);
  assert.match(message(() => withRouting([3], []).info()), /^bad-routes: static roles\[0\] is number 3; known roles/);
  // describe and configure report it too, if the statics change after the build
  // (configure as the WIT error string).
  const later = withRouting([], []);
  const exported = exportCheck(later);
  later.effects = ['outbound_message'];
  assert.match(message(() => exported.describe()), /^bad-routes: static effects\[0\] is the unknown effect "outbound_message"/);
  assert.throws(() => exported.configure('{}'), (e) => typeof e === 'string' && e.startsWith('bad-routes: static effects[0] is the unknown effect "outbound_message"'));
});

test('exportCheck wires the interface and reports settings errors as strings', () => {
  const logged = [];
  const exp = exportCheck(Words, (level, message) => logged.push([level, message]));
  assert.equal(exp.describe().name, 'words');
  assert.throws(() => exp.configure('{"wrods": []}'), (e) => e === 'settings.wrods: unknown key (known keys: words)');
  exp.configure('{"words": ["bad"]}');
  const ctx = { history: [], attributes: [] };
  assert.deepEqual(exp.check({ id: '', name: 't', arguments: '{"q":"bad"}' }, { requiresApproval: false, tags: [] }, ctx),
    { tag: 'deny', val: { message: 'contains bad', rule: 'words.blocked' } });
  assert.deepEqual(exp.check({ id: '', name: 't', arguments: '{}' }, { requiresApproval: false, tags: [] }, ctx), { tag: 'allow' });
});

test('exportCheck logs and rethrows when check throws or returns garbage', () => {
  class Broken extends Check {
    static name = 'broken';
    check(call) {
      if (call.name === 'throw') throw new Error('boom');
      return 'allow';
    }
  }
  const logged = [];
  const exp = exportCheck(Broken, (level, message) => logged.push([level, message]));
  const ctx = { history: [], attributes: [] };
  assert.throws(() => exp.check({ id: '', name: 'throw', arguments: '{}' }, { tags: [] }, ctx), /boom/);
  assert.throws(() => exp.check({ id: '', name: 'x', arguments: '{}' }, { tags: [] }, ctx), /must return a Decision/);
  assert.equal(logged.length, 2);
  assert.equal(logged[0][0], 'error');
});

test('exportCheck validates the class', () => {
  class Unnamed extends Check {
    check() {
      return allow();
    }
  }
  class NoCheck extends Check {
    static name = 'no-check';
  }
  assert.throws(() => exportCheck(Unnamed), /static name/);
  assert.throws(() => exportCheck(NoCheck), /must implement check/);
  assert.throws(() => exportCheck(class {}), /subclass of Check/);
});

test('configure runs warmUp once, after the settings, and a throw fails configure', () => {
  const seen = [];
  class Warm extends Check {
    static name = 'warm';
    static settings = { fail: t.boolean(false) };
    warmUp() {
      seen.push(this.settings.fail);
      if (this.settings.fail) throw new RangeError('sample call crashed');
    }
    check() {
      return allow();
    }
  }
  const logged = [];
  const exp = exportCheck(Warm, (level, message) => logged.push([level, message]));
  assert.deepEqual(seen, []);
  exp.configure('{}');
  assert.deepEqual(seen, [false]);
  assert.throws(() => exp.configure('{"fail": true}'), (e) => e === 'the check failed to warm up: RangeError: sample call crashed');
  assert.deepEqual(seen, [false, true]);
  assert.equal(logged.length, 1);
  assert.equal(logged[0][0], 'error');
  assert.match(logged[0][1], /^warmUp threw: RangeError: sample call crashed\n/);
  // A settings error is reported before any warm-up runs.
  assert.throws(() => exp.configure('{"fail": 1}'), /settings\.fail/);
  assert.deepEqual(seen, [false, true]);
});

test('warmUpWith vets each call with no context and as a coding agent', () => {
  const seen = [];
  class Recorder extends Check {
    static name = 'recorder';
    check(call, _tool, ctx) {
      seen.push([call.name, call.json.n, ctx.agent, ctx.attribute('cwd')]);
      return allow();
    }
  }
  warmUpWith(new Recorder({}), [['a', { n: 1 }], ['b', { n: 2 }]]);
  assert.deepEqual(seen, [
    ['a', 1, null, null],
    ['b', 2, null, null],
    ['a', 1, 'coder', '/home/alice/project'],
    ['b', 2, 'coder', '/home/alice/project'],
  ]);
  class Crashes extends Check {
    static name = 'crashes';
    check() {
      throw new TypeError('no');
    }
  }
  assert.throws(() => warmUpWith(new Crashes({}), [['a', {}]]), /no/);
  assert.ok(WARM_UP_TEXT.length > 500 && WARM_UP_TEXT.includes('https://'));
});

// Issue 29, finding 4: the kit refuses control characters other than tab and
// newline (a CR only in a CRLF) before any check runs, with the Rust kit's
// rule id and message.
test('control characters are refused before the check runs', async () => {
  const { vet, CONTROL_CHARACTER_RULE } = await import('../toolvet-check/index.js');
  class Never extends Check {
    static name = 'never';
    check(call) {
      if (stringsIn(call.json).some(([, s]) => s.includes('\x00'))) throw new Error('the kit refuses first');
      return allow();
    }
  }
  const never = new Never({});
  const run = (args, name = 'bash', ctx = new Context()) => vet(never, new ToolCall(name, args), {}, ctx);
  for (const [args, path, offset] of [
    ['{"command": "r\\u0000m -rf ~"}', 'arguments.command', 1],
    ['{"command": "su\\u0000do id"}', 'arguments.command', 2],
    ['{"command": "terraform dest\\u0000roy"}', 'arguments.command', 14],
    ['{"path": "/w/.claude/settings.js\\u0000on"}', 'arguments.path', 22],
  ]) {
    const d = run(args);
    assert.equal(d.kind, 'deny', args);
    assert.equal(d.rule, CONTROL_CHARACTER_RULE);
    assert.ok(
      d.message.startsWith(`The value of \`${path}\` holds the control character \\x00 (NUL) at byte ${offset}.`),
      d.message,
    );
    assert.ok(!d.message.includes('\x00'));
  }
  assert.ok(run('{"a": "\\u00e9\\u001b[2K"}').message.includes('`arguments.a` holds the control character \\x1b (ESC) at byte 2.'));
  assert.ok(run('{"comm\\u0000and": "x"}').message.startsWith('The key `arguments["comm\\u0000and"]` holds'));
  assert.ok(run('{"edits": [{"path": "a"}, {"new": "x\\by"}]}').message.includes('`arguments.edits[1].new`'));
  assert.equal(run('{}', 'ba\x00sh').rule, CONTROL_CHARACTER_RULE);
  assert.ok(run('{}', 'bash', new Context({ attributes: [['cwd', '/home/a\rb']] })).message.includes('`context.attributes.cwd`'));
  assert.equal(run('{"a": "echo ok\\rrm -rf ~"}').rule, CONTROL_CHARACTER_RULE);
  const history = new Context({ history: [new PriorCall('bash', '{"command": "r\\u0000m"}', 'denied')] });
  assert.equal(run('{"command": "ls"}', 'bash', history).kind, 'allow');
  assert.ok(run('{"a": "\x00"').message.includes('`arguments`'));
  for (const args of [
    '{"command": "printf \'a\\tb\\n\' | sort"}',
    '{"content": "one\\r\\ntwo\\r\\n"}',
    '{"content": "C:\\\\root\\\\bin \\\\u0000"}',
    '{"content": "del \\u007f, c1 \\u0085, \\u00e9 \\ud83d\\ude00"}',
  ]) {
    assert.equal(run(args).kind, 'allow', args);
  }
});
