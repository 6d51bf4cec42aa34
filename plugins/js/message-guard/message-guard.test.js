// Unit tests of message-guard's parsing and rules: `cd plugins/js && node --test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Context, SettingsError, ToolCall, ToolInfo } from '../toolvet-check/index.js';
import {
  MessageGuard, attachmentName, attachmentsIn, extension, normalizeDomain, parseRecipient, recipientsIn, splitAddressList,
} from './message-guard.js';

const run = (guard, name, args) => guard.check(new ToolCall(name, JSON.stringify(args)), new ToolInfo(), new Context());

test('splitAddressList respects quotes, comments and angle brackets', () => {
  assert.deepEqual(splitAddressList('"Smith, Bob" <bob@x.com>, carol@y.com; dan@z.com'), ['"Smith, Bob" <bob@x.com>', 'carol@y.com', 'dan@z.com']);
  assert.deepEqual(splitAddressList('a@x.com (work, main),  ,b@y.com'), ['a@x.com (work, main)', 'b@y.com']);
  assert.deepEqual(splitAddressList('"a\\"b, c" <d@e.com>'), ['"a\\"b, c" <d@e.com>']);
  assert.deepEqual(splitAddressList('<a,b@x.com>'), ['<a,b@x.com>']);
  assert.deepEqual(splitAddressList(''), []);
});

test('parseRecipient reads the real address', () => {
  const email = (text) => {
    const p = parseRecipient(text);
    assert.equal(p.kind, 'email', `${text}: ${JSON.stringify(p)}`);
    return [p.address, p.domain];
  };
  assert.deepEqual(email('bob@acme.com'), ['bob@acme.com', 'acme.com']);
  assert.deepEqual(email('Bob Smith <Bob@ACME.com.>'), ['Bob@acme.com', 'acme.com']);
  assert.deepEqual(email('"bob@acme.com" <eve@evil.com>'), ['eve@evil.com', 'evil.com']);
  assert.deepEqual(email('bob@acme.com <eve@evil.com>'), ['eve@evil.com', 'evil.com']);
  assert.deepEqual(email('"Re: x" <a@b.org>'), ['a@b.org', 'b.org']);
  assert.deepEqual(email('Team: a@b.org'), ['a@b.org', 'b.org']);
  assert.deepEqual(email('mailto:a@b.org?subject=hi'), ['a@b.org', 'b.org']);
  assert.deepEqual(email('a@b.org (Alice, at work)'), ['a@b.org', 'b.org']);
  assert.deepEqual(email('"john doe"@b.org'), ['"john doe"@b.org', 'b.org']);
  assert.deepEqual(email('"eve@evil.com"@acme.com'), ['"eve@evil.com"@acme.com', 'acme.com']);
  assert.deepEqual(email('x@bücher.de'), ['x@xn--bcher-kva.de', 'xn--bcher-kva.de']);
  assert.deepEqual(email('x@[192.0.2.1]'), ['x@[192.0.2.1]', '[192.0.2.1]']);
});

test('parseRecipient: non-addresses and invalid addresses', () => {
  for (const text of ['+1 555 123 4567', '#general', '@bob', 'U024BE7LH', 'Bob']) assert.equal(parseRecipient(text).kind, 'other', text);
  for (const text of ['bob@', 'eve@evil.com@acme.com', 'eve%evil.com@acme.com', 'bob smith@acme.com', 'a@b..c', 'a@-x.com', 'a@exa mple.com']) {
    assert.equal(parseRecipient(text).kind, 'invalid', text);
  }
});

test('recipientsIn handles arrays, objects and numbers', () => {
  const got = recipientsIn(['a@x.com, b@y.com', { emailAddress: { address: 'c@z.com' } }, { email: 'd@w.com' }, 15551234567, { id: 'U1' }], 'to');
  assert.deepEqual(got.map((r) => [r.field, r.parsed.kind]), [
    ['to[0]', 'email'], ['to[0]', 'email'], ['to[1].emailAddress.address', 'email'], ['to[2].email', 'email'], ['to[3]', 'other'], ['to[4]', 'invalid'],
  ]);
  assert.deepEqual(recipientsIn('undisclosed-recipients:;', 'to'), []);
});

test('normalizeDomain', () => {
  assert.equal(normalizeDomain('ACME.com.'), 'acme.com');
  assert.equal(normalizeDomain('аcme.com'), 'xn--cme-5cd.com');
  assert.equal(normalizeDomain('exa mple.com'), null);
  assert.equal(normalizeDomain(''), null);
});

test('attachment names and extensions', () => {
  assert.equal(attachmentName('C:\\Users\\bob\\setup.EXE. '), 'setup.EXE');
  assert.equal(attachmentName('https://x.com/a/id_rsa?dl=1#frag'), 'id_rsa');
  assert.equal(attachmentName('https://x.com/a/evil%2Eexe'), 'evil.exe');
  assert.equal(attachmentName('/app/.env'), '.env');
  assert.deepEqual(attachmentsIn(['a.pdf', { filename: 'b.png' }, { url: 'https://x/c.zip' }, 3]), ['a.pdf', 'b.png', 'c.zip']);
  assert.equal(extension('a.tar.GZ'), 'gz');
  assert.equal(extension('.env'), '');
  assert.equal(extension('README'), '');
});

test('defaults: no domain policy, secrets and attachments still checked', () => {
  const g = MessageGuard.fromSettingsJson('{}');
  assert.equal(run(g, 'send_email', { to: 'anyone@anywhere.net', body: 'hi' }).kind, 'allow');
  assert.equal(run(g, 'send_email', { to: 'a@b.com', attachments: ['run.ps1'] }).rule, 'message.blocked-attachment');
  assert.equal(run(g, 'send_email', { to: 'a@b.com', body: 'key AKIAIOSFODNN7EXAMPLE' }).rule, 'message.secret-in-content');
  const many = Array.from({ length: 21 }, (_, i) => `u${i}@b.com`);
  assert.equal(run(g, 'send_email', { to: many }).rule, 'message.too-many-recipients');
  assert.equal(run(g, 'send_email', { to: many.slice(0, 20) }).kind, 'allow');
  assert.equal(run(MessageGuard.fromSettingsJson('{"detect_secrets": false}'), 'send_email', { body: 'AKIAIOSFODNN7EXAMPLE' }).kind, 'allow');
});

test('duplicates count once towards max_recipients', () => {
  const g = MessageGuard.fromSettingsJson('{"max_recipients": 2}');
  assert.equal(run(g, 'send_email', { to: ['a@b.com', 'A@B.com'], cc: 'a@b.com, c@b.com' }).kind, 'allow');
  assert.equal(run(g, 'send_email', { to: ['a@b.com', 'd@b.com'], cc: 'c@b.com' }).kind, 'escalate');
});

test('deny outranks escalate regardless of order', () => {
  const g = MessageGuard.fromSettingsJson('{"internal_domains": ["acme.com"], "max_recipients": 1}');
  assert.equal(run(g, 'send_email', { to: ['x@partner.io', 'y@partner.io'], attachments: ['a.exe'] }).rule, 'message.blocked-attachment');
  assert.equal(run(g, 'send_email', { to: ['x@partner.io', 'y@acme.com'] }).rule, 'message.external-recipient');
});

test('content rules: fields, flags and actions', () => {
  const g = MessageGuard.fromSettingsJson(JSON.stringify({
    content_rules: [
      { pattern: 'wire transfer', flags: 'i', rule: 'message.wire', message: 'no wires', fields: ['subject'] },
      { pattern: '^price:', flags: 'm', message: 'prices need approval', action: 'escalate' },
    ],
  }));
  assert.equal(run(g, 'send_email', { subject: 'WIRE TRANSFER today' }).rule, 'message.wire');
  assert.equal(run(g, 'send_email', { body: 'wire transfer today' }).kind, 'allow');
  const d = run(g, 'send_email', { body: 'hello\nprice: 10' });
  assert.deepEqual([d.kind, d.rule, d.message], ['escalate', 'message.blocked-content', 'prices need approval (in body)']);
});

test('settings errors name the key', () => {
  const cases = [
    ['{"allowed_domains": ["acme.com", "not a domain"]}', 'settings.allowed_domains[1]: "not a domain" is not a domain name'],
    ['{"blocked_extensions": [".tar.gz"]}', 'settings.blocked_extensions[0]: ".tar.gz" is not a file extension'],
    ['{"content_rules": [{"pattern": "(", "message": "m"}]}', /^settings\.content_rules\[0\]\.pattern: not a valid regular expression/],
    ['{"content_rules": [{"pattern": "x", "message": "m", "flags": "g"}]}', 'settings.content_rules[0].flags: only the flags i, m, s and u are allowed (got "g")'],
    ['{"content_rules": [{"pattern": "x", "message": "m", "rule": "Bad Rule"}]}', 'settings.content_rules[0].rule: "Bad Rule" is not a rule id like "message.no-prices"'],
    ['{"content_rules": [{"pattern": "x"}]}', 'settings.content_rules[0].message: missing required key'],
    ['{"max_recipients": 0}', 'settings.max_recipients: must be at least 1 (got 0)'],
    ['{"external_recipients": "warn"}', 'settings.external_recipients: expected one of "deny", "escalate", "allow", got string "warn"'],
  ];
  for (const [text, want] of cases) {
    assert.throws(() => MessageGuard.fromSettingsJson(text), (e) => {
      assert.ok(e instanceof SettingsError);
      if (want instanceof RegExp) assert.match(e.message, want);
      else assert.equal(e.message, want);
      return true;
    });
  }
  assert.deepEqual(MessageGuard.fromSettingsJson('{"allowed_domains": ["*.Acme.com", "@partner.io"]}').allowed, ['acme.com', 'partner.io']);
  assert.equal(MessageGuard.fromSettingsJson('{"max_recipients": null}').settings.max_recipients, null);
});

test("the principal's own domain is internal", () => {
  const g = MessageGuard.fromSettingsJson('{"internal_domains": ["acme.com"]}');
  const as = (principal, to) =>
    g.check(new ToolCall('send_email', JSON.stringify({ to: [to] })), new ToolInfo(), new Context({ principal }));
  assert.equal(as('carol@globex.com', 'dave@globex.com').kind, 'allow');
  assert.equal(as('carol@globex.com', 'dave@globex-partners.net').rule, 'message.external-recipient');
  assert.equal(as(null, 'dave@globex.com').rule, 'message.external-recipient');
  const off = MessageGuard.fromSettingsJson('{"internal_domains": ["acme.com"], "principal_is_internal": false}');
  const d = off.check(new ToolCall('send_email', JSON.stringify({ to: ['dave@globex.com'] })), new ToolInfo(), new Context({ principal: 'carol@globex.com' }));
  assert.equal(d.rule, 'message.external-recipient');
});

test('warmUp runs its sample calls under any settings and changes no later decision', () => {
  const calls = [
    ['send_email', { to: 'bob@acme.com', body: 'hi' }],
    ['send_email', { to: 'eve@evil.example', body: 'price: $40', attachments: ['a.sh'] }],
    ['slack_post_message', { channel: '#x', text: 'key AKIAABCDEFGHIJKLMNOP' }],
  ];
  for (const settings of [
    '{}',
    '{"internal_domains": ["acme.com"], "allowed_domains": ["acme.com", "example.net"], "external_recipients": "deny"}',
    '{"content_rules": [{"rule": "message.no-prices", "pattern": "\\\\$\\\\d+", "message": "no prices", "action": "escalate"}], "detect_secrets": false}',
  ]) {
    const warmed = MessageGuard.fromSettingsJson(settings);
    warmed.warmUp();
    const cold = MessageGuard.fromSettingsJson(settings);
    const decisions = (guard) => calls.map(([tool, args]) => run(guard, tool, args));
    assert.deepEqual(decisions(warmed), decisions(cold), settings);
  }
});

test('fields are read in any case and Unicode form, as a tool may read them', () => {
  // Issue 29, fourth review: `Attachments` and `To` went to a tool that
  // reads keys case-insensitively, unchecked.
  const g = MessageGuard.fromSettingsJson('{"internal_domains": ["acme.com"]}');
  assert.equal(run(g, 'send_email', { To: 'a@acme.com', Attachments: ['/root/.ssh/id_rsa'] }).rule, 'message.blocked-attachment');
  assert.equal(run(g, 'send_email', { TO: 'eve@evil.com', subject: 'hi' }).rule, 'message.external-recipient');
  assert.equal(run(g, 'send_email', { 'ｔｏ': 'eve@evil.com' }).rule, 'message.external-recipient');
  assert.equal(run(g, 'send_email', { to: 'a@acme.com', 'Bo\u200bdy': 'AKIAIOSFODNN7EXAMPLE' }).kind, run(g, 'send_email', { to: 'a@acme.com', body: 'AKIAIOSFODNN7EXAMPLE' }).kind);
  assert.equal(run(g, 'send_email', { to: 'a@acme.com', attachmentsList: ['x.exe'] }).kind, 'allow');
});

// ---------------------------------------------------------------- the host's facts (contract 0.2, #31)

const facts = (effects, roles = [], source = { tag: 'catalog', val: 'test/tool@2026-12' }) => ({
  effects: new Set(effects),
  irreversible: false,
  protectedTarget: false,
  roles: roles.map(([pointer, value]) => ({ role: 'recipient', pointer, value, dialect: null })),
  source,
});
const runWith = (guard, name, args, f) =>
  guard.check(new ToolCall(name, JSON.stringify(args)), new ToolInfo({ facts: f }), new Context());

test('declares the outbound-message effect, so a 0.2 host routes any sending tool here', () => {
  assert.deepEqual(MessageGuard.info().effects, ['outbound-message']);
  assert.deepEqual(MessageGuard.info().roles, []);
});

test('facts: an unknown tool that sends is judged by the recipients the host found', () => {
  const g = MessageGuard.fromSettingsJson('{"internal_domains": ["acme.com"]}');
  const args = { wallet: '0xabc', notify_address: 'eve@evil.example', text: 'your balance is low' };
  // No glob names `wallet_notify` and no recipient field is set: without facts it passes.
  assert.equal(run(g, 'wallet_notify', args).kind, 'allow');
  const d = runWith(g, 'wallet_notify', args, facts(['outbound-message'], [['/notify_address', 'eve@evil.example']]));
  assert.equal(d.kind, 'escalate');
  assert.equal(d.rule, 'message.external-recipient');
  assert.match(d.message, /eve@evil\.example/);
  // An internal recipient found the same way passes.
  assert.equal(runWith(g, 'wallet_notify', { ...args, notify_address: 'ops@acme.com' }, facts(['outbound-message'], [['/notify_address', 'ops@acme.com']])).kind, 'allow');
});

test('facts never take a call away from the name globs', () => {
  const g = MessageGuard.fromSettingsJson('{"internal_domains": ["acme.com"]}');
  const args = { to: 'eve@evil.example', attachments: ['run.exe'] };
  // Not the catalog's word either: a name can be made to look like a
  // catalogued read (`send_email__get_me`, review s21 F1).
  assert.equal(runWith(g, 'send_digest', args, facts(['read'])).rule, 'message.blocked-attachment');
  const inferred = { tag: 'inferred', val: ['description verb "get": read'] };
  assert.equal(runWith(g, 'send_digest', args, facts(['read'], [], inferred)).rule, 'message.blocked-attachment');
  assert.equal(runWith(g, 'send_digest', args, facts([])).rule, 'message.blocked-attachment');
});

test('facts: a nested Bcc found only by the host is judged', () => {
  const g = MessageGuard.fromSettingsJson('{"internal_domains": ["acme.com"]}');
  const args = { to: 'dana@acme.com', message: { subject: 'Q3 numbers', bcc: [{ email: 'eve@evil.example' }] } };
  // The recipient fields are read at the top only: without facts the Bcc is unseen.
  assert.equal(run(g, 'send_email', args).kind, 'allow');
  const f = facts(['outbound-message'], [['/to', 'dana@acme.com'], ['/message/bcc/0/email', 'eve@evil.example']]);
  const d = runWith(g, 'send_email', args, f);
  assert.equal(d.rule, 'message.external-recipient');
  assert.match(d.message, /to eve@evil\.example;/);
  // `/message/to/0` too, and an invalid nested address is denied, named by its pointer.
  const bad = runWith(g, 'compose', { message: { to: ['eve@evil.com@acme.com'] } }, facts(['outbound-message'], [['/message/to/0', 'eve@evil.com@acme.com']]));
  assert.equal(bad.rule, 'message.invalid-recipient');
  assert.match(bad.message, /\/message\/to\/0/);
});

test('facts: texts the host found sent are read for secrets and content rules', () => {
  const g = MessageGuard.fromSettingsJson(
    '{"content_rules": [{"pattern": "acme internal", "flags": "i", "rule": "message.internal", "message": "internal text", "action": "escalate"}]}',
  );
  // A call made through a wrapping tool: the texts are under `arguments`.
  const args = { server_name: 'slack', tool_name: 'slack_post_message', arguments: { channel_id: 'C1', text: 'token: xoxb-2048-4096-Ab12Cd34Ef56Gh78Ij90Kl12' } };
  assert.equal(run(g, 'use_mcp_tool', args).kind, 'allow');
  const sent = (pointer, value) => ({ ...facts(['outbound-message']), roles: [{ role: 'outbound-content', pointer, value, dialect: null }] });
  const d = runWith(g, 'use_mcp_tool', args, sent('/arguments/text', args.arguments.text));
  assert.equal(d.rule, 'message.secret-in-content');
  assert.match(d.message, /\/arguments\/text/);
  const quoted = { ...args, arguments: { text: 'ACME internal: rates' } };
  assert.equal(runWith(g, 'use_mcp_tool', quoted, sent('/arguments/text', 'ACME internal: rates')).rule, 'message.internal');
  // A rule with fields of its own reads only those.
  const own = MessageGuard.fromSettingsJson(
    '{"content_rules": [{"pattern": "acme internal", "flags": "i", "rule": "message.internal", "message": "m", "fields": ["subject"]}]}',
  );
  assert.equal(runWith(own, 'use_mcp_tool', quoted, sent('/arguments/text', 'ACME internal: rates')).kind, 'allow');
});

test('facts: recipients the fields already read are not counted twice', () => {
  const g = MessageGuard.fromSettingsJson('{"max_recipients": 2}');
  const to = ['a@x.com', 'b@x.com'];
  const f = facts(['outbound-message'], [['/to/0', 'a@x.com'], ['/to/1', 'b@x.com'], ['/to/1', 'b@x.com']]);
  assert.equal(runWith(g, 'send_email', { to }, f).kind, 'allow');
  // The same recipients under another key are the same recipients.
  const f2 = facts(['outbound-message'], [['/to/0', 'a@x.com'], ['/envelope/rcpt/0', 'b@x.com']]);
  assert.equal(runWith(g, 'send_email', { to, envelope: { rcpt: ['b@x.com'] } }, f2).kind, 'allow');
  // A third one found only by the host goes over the limit.
  const f3 = facts(['outbound-message'], [['/envelope/rcpt/0', 'c@x.com']]);
  assert.equal(runWith(g, 'send_email', { to, envelope: { rcpt: ['c@x.com'] } }, f3).rule, 'message.too-many-recipients');
  // An invalid address in a field is reported once, not again from the facts.
  const inv = runWith(g, 'send_email', { to: 'x@' }, facts(['outbound-message'], [['/to', 'x@']]));
  assert.equal(inv.rule, 'message.invalid-recipient');
  assert.equal(inv.message.match(/\(/g).length, 1);
});

test('facts: a recipient value is read at its pointer, or from its text when the pointer does not resolve', () => {
  const g = MessageGuard.fromSettingsJson('{"internal_domains": ["acme.com"], "max_recipients": 1}');
  // A phone number stays a recipient without a domain (it counts, it is not external).
  assert.equal(runWith(g, 'sms_out', { phone: 15551234567 }, facts(['outbound-message'], [['/phone', '15551234567']])).kind, 'allow');
  assert.equal(
    runWith(g, 'notify', { phone: 15551234567, chat: '#ops' }, facts(['outbound-message'], [['/phone', '15551234567'], ['/chat', '#ops']])).rule,
    'message.too-many-recipients',
  );
  assert.equal(runWith(g, 'notify', {}, facts(['outbound-message'], [['/gone', 'eve@evil.example']])).rule, 'message.external-recipient');
  // Escaped pointer tokens (`~1` is `/`, `~0` is `~`).
  assert.equal(runWith(g, 'notify', { 'a/b': { '~c': 'eve@evil.example' } }, facts(['outbound-message'], [['/a~1b/~0c', 'ignored@acme.com']])).rule, 'message.external-recipient');
});

test('facts: without them, or with them, warmUp changes no later decision', () => {
  const g = MessageGuard.fromSettingsJson('{"internal_domains": ["acme.com"]}');
  g.warmUp();
  const cold = MessageGuard.fromSettingsJson('{"internal_domains": ["acme.com"]}');
  const f = facts(['outbound-message'], [['/message/bcc/0/email', 'eve@evil.example']]);
  const args = { message: { bcc: [{ email: 'eve@evil.example' }] } };
  assert.deepEqual(runWith(g, 'notify_team', args, f), runWith(cold, 'notify_team', args, f));
});
