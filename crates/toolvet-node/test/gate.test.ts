// The gate every adapter shares (ts/gate.ts), against the real addon:
// what it takes from a framework, and what it never lets through.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Gate, Host, RUN_IDLE_MS } from '@toolvet/node';
import { component, policy, testHost } from './support.js';

const deploy = (id: string, args: Record<string, unknown>) => ({ call: { id, name: 'deploy', arguments: args }, context: { runId: 'run-g' } });

test('arguments JSON cannot hold are a deny, never a rejection', async () => {
  const gate = new Gate(await testHost());
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  for (const args of [{ amount: 10n }, cyclic]) {
    const verdict = await gate.settle(deploy('g1', args), { approved: true, reviewer: 'x' });
    assert.equal(verdict.decision, 'deny');
    assert.equal(verdict.rule, 'toolvet.invalid-call');
  }
});

test('the cache and the host read the same arguments', async () => {
  const host = await testHost();
  const gate = new Gate(host);
  // Inherited keys are not the call's: neither the host nor the cache sees `env`.
  const inherited = Object.create({ env: 'prod' }) as Record<string, unknown>;
  const first = await gate.verdict(deploy('g2', inherited));
  const [request] = await host.pending();
  assert.equal(first.approval?.id, request?.id);
  assert.deepEqual(request?.arguments, {});
  // `toJSON` is applied once: the host sees what the cache key holds.
  const date = new Date(0);
  await gate.verdict(deploy('g3', { at: date }));
  const requests = await host.pending();
  assert.deepEqual(requests.at(-1)?.arguments, { at: '1970-01-01T00:00:00.000Z' });
});

test('without [approvals], an escalate is a deny, whatever the framework answers', async () => {
  const gate = new Gate(await testHost({ approvals: false }));
  for (const answer of [undefined, { approved: true, reviewer: 'p' }]) {
    const verdict = await gate.settle(deploy('g4', { env: 'prod' }), answer);
    assert.equal(verdict.decision, 'deny');
    assert.equal(verdict.rule, 'approval.disabled');
    assert.match(verdict.reason ?? '', /no \[approvals\] table/);
  }
  assert.equal((await gate.verdict(deploy('g5', {}))).rule, 'approval.disabled');
});

test('an approval about a call toolvet was not holding is refused; a rejection is recorded', async () => {
  const host = await testHost();
  const gate = new Gate(host);
  const refused = await gate.settle(deploy('g6', { env: 'prod' }), { approved: true, reviewer: 'mallory' });
  assert.equal(refused.rule, 'toolvet.approval-not-recorded');
  const [opened] = await host.pending();
  assert.equal(opened?.review, undefined, 'nothing recorded');
  const rejected = await gate.settle(deploy('g7', { env: 'prod' }), { approved: false, reviewer: 'bob' });
  assert.equal(rejected.rule, 'approval.rejected');
  // Once held, the answer is taken; a second run of the call is refused.
  assert.equal((await gate.verdict(deploy('g8', { env: 'prod' }))).decision, 'escalate');
  assert.equal((await gate.settle(deploy('g8', { env: 'prod' }), { approved: true, reviewer: 'alice' })).rule, 'approval.approved');
  assert.equal((await new Gate(host).settle(deploy('g8', { env: 'prod' }), { approved: true, reviewer: 'alice' })).rule, 'approval.replayed');
  assert.equal((await gate.settle(deploy('g8', { env: 'prod' }), undefined)).rule, 'approval.replayed');
});

test('a rejection through the framework runs nothing and spends no approval', async () => {
  const host = await testHost();
  const gate = new Gate(host);
  const held = await gate.verdict(deploy('g9', { env: 'prod' }));
  const id = held.approval?.id ?? '';
  await host.approve(id, 'alice');
  const verdict = await gate.reject(deploy('g9', { env: 'prod' }), { approved: false, reviewer: 'bob', message: 'no' });
  assert.equal(verdict.decision, 'deny');
  assert.equal(verdict.reason, 'bob rejected this call: no');
  assert.equal((await host.approval(id)).status, 'approved', 'the approval is not spent');
  // Still waiting: the rejection is recorded in toolvet.
  const other = await gate.verdict(deploy('g10', { env: 'prod' }));
  await gate.reject(deploy('g10', { env: 'prod' }), { approved: false, reviewer: 'bob' });
  assert.equal((await host.approval(other.approval?.id ?? '')).review?.reviewer, 'bob');
});

test('an allow that used an approval is never answered from memory: each ask goes to the host', async () => {
  const host = await testHost();
  let checks = 0;
  const counting = {
    check: (...a: Parameters<typeof host.check>) => {
      checks += 1;
      return host.check(...a);
    },
    resume: (...a: Parameters<typeof host.resume>) => host.resume(...a),
    preview: (...a: Parameters<typeof host.preview>) => host.preview(...a),
    approve: (...a: Parameters<typeof host.approve>) => host.approve(...a),
    reject: (...a: Parameters<typeof host.reject>) => host.reject(...a),
  };
  const gate = new Gate(counting);
  const held = await gate.verdict(deploy('g11', { env: 'prod' }));
  await host.approve(held.approval?.id ?? '', 'alice', { scope: 'run' });
  for (const id of ['g11', 'g12']) {
    for (let i = 0; i < 2; i += 1) {
      const before = checks;
      const verdict = await gate.settle(deploy(id, { env: 'prod' }), undefined);
      assert.equal(`${verdict.decision}/${verdict.rule}`, 'allow/approval.run-scope');
      assert.equal(checks, before + 1, 'asked the host, not the cache');
    }
  }
  // Nor a plain allow: each look is asked with the run's history (review s16 P7).
  const plain = { call: { id: 'g13', name: 'read_file', arguments: {} }, context: { runId: 'run-g' } };
  await gate.verdict(plain);
  const before = checks;
  assert.equal((await gate.verdict(plain)).decision, 'allow');
  assert.equal(checks, before + 1);
});

test('a verdict is given only to the agent and principal it was asked for', async () => {
  const host = await testHost();
  // A policy that tells askers apart: `ops` may deploy to staging, others may not.
  const perAgent = {
    check: async (call: Parameters<typeof host.check>[0], tool?: Parameters<typeof host.check>[1], context?: Parameters<typeof host.check>[2]) =>
      context?.agent === 'ops'
        ? { decision: 'allow' as const, checks: [], durationUs: 0 }
        : { decision: 'deny' as const, rule: 'tools.agent', reason: `${context?.agent} may not call ${call.name}`, checks: [], durationUs: 0 },
    resume: (...a: Parameters<typeof host.resume>) => host.resume(...a),
    preview: (...a: Parameters<typeof host.preview>) => host.preview(...a),
    approve: (...a: Parameters<typeof host.approve>) => host.approve(...a),
    reject: (...a: Parameters<typeof host.reject>) => host.reject(...a),
  };
  const gate = new Gate(perAgent);
  const as = (agent: string, principal = 'alice') => ({ call: { id: 'g20', name: 'deploy', arguments: { env: 'staging' } }, context: { runId: 'run-g', agent, principal } });
  assert.equal((await gate.verdict(as('ops'))).decision, 'allow');
  const other = await gate.verdict(as('intern'));
  assert.equal(`${other.decision}: ${other.reason}`, 'deny: intern may not call deploy');
  assert.equal((await gate.verdict(as('ops'))).decision, 'allow');
});

const SEQUENCE = `
[[check]]
name = "sequence"
plugin = ${JSON.stringify(component('plugins/sequence_guard.wasm'))}
isolation = "reuse"
timeout_ms = 5000
[check.settings]
max_calls = [{ tools = "pay_invoice", max = 2 }]
only_after = [{ tool = "release", after = ["run_tests"] }]
loop_detection = { enabled = false }
`;

const inRun = (runId: string, id: string, name: string, args: Record<string, unknown> = {}) => ({
  call: { id, name, arguments: args },
  context: { runId },
});

test('each run is vetted with its history, so run limits and ordering rules hold', async () => {
  const gate = new Gate(await testHost({ extra: SEQUENCE }));
  const pay = { amount: 99, currency: 'USD' };
  assert.equal((await gate.settle(inRun('a', 'r0', 'release'), undefined)).rule, 'sequence.only-after');
  assert.equal((await gate.settle(inRun('a', 't1', 'run_tests'), undefined)).decision, 'allow');
  assert.equal((await gate.settle(inRun('a', 'r1', 'release'), undefined)).decision, 'allow');
  const paid = [];
  for (const id of ['p0', 'p1', 'p2']) {
    paid.push((await gate.settle(inRun('a', id, 'pay_invoice', pay), undefined)).decision);
  }
  assert.deepEqual(paid, ['allow', 'allow', 'deny']);
  // A framework's look before the tool runs adds nothing (and sees the limit reached).
  assert.equal((await gate.verdict(inRun('a', 'p0', 'pay_invoice', pay))).decision, 'deny');
  assert.deepEqual(
    gate.history('a').filter((e) => e.name === 'pay_invoice').map((e) => e.outcome),
    ['allowed', 'allowed', 'denied'],
  );
  // Another run has its own history.
  assert.equal((await gate.settle(inRun('b', 'p0', 'pay_invoice', pay), undefined)).decision, 'allow');
  assert.equal((await gate.settle(inRun('b', 'r0', 'release'), undefined)).rule, 'sequence.only-after');
});

test('a call id a provider reuses for other calls adds each call (review s14 N1)', async () => {
  // Some providers number calls per turn: `call_0` recurs with other arguments.
  const gate = new Gate(await testHost({ extra: SEQUENCE }));
  const paid = [];
  for (const i of [0, 1, 2]) {
    const pay = { amount: 99, currency: 'USD', invoice: `INV-${i}` };
    paid.push((await gate.settle(inRun('a', 'call_0', 'pay_invoice', pay), undefined)).decision);
  }
  assert.deepEqual(paid, ['allow', 'allow', 'deny']);
  assert.deepEqual(gate.history('a').map((e) => e.outcome), ['allowed', 'allowed', 'denied']);
  // A held call whose id a later, allowed call reuses stays held.
  assert.equal((await gate.settle(inRun('b', 'call_1', 'deploy', { env: 'prod' }), undefined)).decision, 'escalate');
  assert.equal((await gate.settle(inRun('b', 'call_1', 'run_tests'), undefined)).decision, 'allow');
  assert.deepEqual(gate.history('b').map((e) => `${e.name}/${e.outcome}`), ['deploy/escalated', 'run_tests/allowed']);
});

test('an identical call under a reused call id counts again (review s15 N2)', async () => {
  // A provider numbering calls per turn sends `call_0` with the same arguments every turn.
  const gate = new Gate(await testHost({ extra: SEQUENCE }));
  const pay = { amount: 99, currency: 'USD' };
  const looked = [];
  const paid = [];
  for (let i = 0; i < 40; i++) {
    // The look before the tool runs sees the same history (review s16 P7).
    looked.push((await gate.verdict(inRun('a', 'call_0', 'pay_invoice', pay))).decision);
    paid.push((await gate.settle(inRun('a', 'call_0', 'pay_invoice', pay), undefined)).decision);
  }
  assert.deepEqual(paid, ['allow', 'allow', ...Array(38).fill('deny')]);
  assert.deepEqual(looked, paid);
  assert.deepEqual(gate.history('a').map((e) => e.outcome), ['allowed', 'allowed', ...Array(38).fill('denied')]);
  // A held call asked about again while it waits is still one entry.
  for (let i = 0; i < 3; i++) {
    assert.equal((await gate.settle(inRun('b', 'call_0', 'deploy', { env: 'prod' }), undefined)).decision, 'escalate');
  }
  assert.deepEqual(gate.history('b').map((e) => e.outcome), ['escalated']);
});

test('a held call approved later counts once; a rejection is recorded as one', async () => {
  const host = await testHost({ extra: SEQUENCE });
  const gate = new Gate(host);
  assert.equal((await gate.settle(inRun('h', 'd1', 'deploy', { env: 'prod' }), undefined)).decision, 'escalate');
  assert.deepEqual(gate.history('h').map((e) => e.outcome), ['escalated']);
  assert.equal((await gate.settle(inRun('h', 'd1', 'deploy', { env: 'prod' }), { approved: true, reviewer: 'alice' })).decision, 'allow');
  assert.deepEqual(gate.history('h').map((e) => `${e.name}/${e.outcome}`), ['deploy/approved']);
  await gate.settle(inRun('h', 'd2', 'deploy', { env: 'stage' }), undefined);
  await gate.reject(inRun('h', 'd2', 'deploy', { env: 'stage' }), { approved: false, reviewer: 'bob' });
  assert.deepEqual(gate.history('h').map((e) => e.outcome), ['approved', 'rejected']);
});

test('a full run history refuses the call; large arguments are elided, small values kept', async () => {
  const gate = new Gate(await testHost({ extra: SEQUENCE }), { maxHistory: 2 });
  const memo = 'x'.repeat(10_000);
  for (const id of ['w0', 'w1']) {
    assert.equal((await gate.settle(inRun('f', id, 'write_note', { path: id, memo }), undefined)).decision, 'allow');
  }
  const [first] = gate.history('f');
  assert.equal(first?.arguments?.path, 'w0');
  assert.match(String(first?.arguments?.memo), /^toolvet\.elided: 10002 bytes, sha256 [0-9a-f]{32}$/);
  const full = await gate.settle(inRun('f', 'g', 'get_weather', { city: 'Paris' }), undefined);
  assert.equal(full.rule, 'toolvet.history-overflow');
  assert.equal(gate.history('f').length, 2);
});

test('a full gate refuses a new run rather than forget a busy one', async (t) => {
  // Review s23 F8: the least recently used run was forgotten, busy or not,
  // and its run totals restarted. A run is forgotten only after RUN_IDLE_MS
  // unused; until then a new run's call is refused, as `toolvet serve` does.
  const gate = new Gate(await testHost({ extra: SEQUENCE }), { maxRuns: 2 });
  const pay = { amount: 99, currency: 'USD' };
  for (const id of ['p0', 'p1']) {
    assert.equal((await gate.settle(inRun('a', id, 'pay_invoice', pay), undefined)).decision, 'allow');
  }
  assert.equal((await gate.settle(inRun('b', 't', 'run_tests', {}), undefined)).decision, 'allow');
  const refused = await gate.settle(inRun('c', 't', 'run_tests', {}), undefined);
  assert.deepEqual([refused.decision, refused.rule], ['deny', 'toolvet.too-many-runs']);
  assert.match(refused.reason ?? '', /maxRuns/);
  assert.deepEqual(gate.history('c'), []);
  // Run "a" keeps its history: its limit still holds.
  assert.equal((await gate.settle(inRun('a', 'p2', 'pay_invoice', pay), undefined)).decision, 'deny');
  // Once a run has been idle long enough, a new run takes its place.
  const later = performance.now() + RUN_IDLE_MS + 1;
  t.mock.method(performance, 'now', () => later);
  assert.equal((await gate.settle(inRun('a', 'w', 'run_tests', {}), undefined)).decision, 'allow');
  assert.equal((await gate.settle(inRun('c', 't', 'run_tests', {}), undefined)).decision, 'allow');
  assert.deepEqual(gate.history('b'), []);
  assert.equal(gate.history('a').length, 4);
});

test('a framework approval under reviewer keys names no way to approve', async () => {
  // Review s12 L3: the core's refusal, written for the person ("approve with
  // `toolvet approvals approve`, which asks for the reviewer's passphrase"),
  // reached the model as the deny's reason.
  const { text, dir } = policy();
  const signed = text.replace(
    'key_file = "approvals.key"\n',
    'key_file = "approvals.key"\nreviewer_keys = ["ed25519:rBMUVLEAJId_QysF-rKv52MVrJnKdyUmUbIUpqCuhKk:s8GQueKx1pa2T7outKYtIg"]\n',
  );
  assert.notEqual(signed, text);
  writeFileSync(join(dir, 'toolvet.toml'), signed);
  const gate = new Gate(await Host.fromFile(join(dir, 'toolvet.toml')));
  const held = await gate.verdict(deploy('l3', { env: 'prod' }));
  assert.equal(held.decision, 'escalate');
  const verdict = await gate.settle(deploy('l3', { env: 'prod' }), { approved: true, reviewer: 'bob' });
  assert.equal(verdict.decision, 'deny');
  assert.equal(verdict.rule, 'approval.unsigned-decision');
  for (const named of ['toolvet approvals', 'passphrase', 'reviewer_keys', '--reviewer']) {
    assert.ok(!(verdict.reason ?? '').includes(named), verdict.reason);
  }
});

test('an invalid call is denied and not added to its run, which goes on (review s22 F3)', async () => {
  const gate = new Gate(await testHost());
  const call = (args: Record<string, unknown>) => ({ call: { name: 'read_file', arguments: args }, context: { runId: 'run-f3' } });
  const folded = await gate.settle(call({ path: 'README.md', PATH: 'x' }), undefined);
  assert.equal(folded.decision, 'deny');
  assert.equal(folded.rule, 'toolvet.invalid-call');
  assert.match(folded.reason ?? '', /the keys `path` and `PATH`/);
  assert.deepEqual(gate.history('run-f3'), []);
  const later = await gate.settle(call({ path: 'README.md' }), undefined);
  assert.equal(later.decision, 'allow', later.reason ?? '');
  assert.deepEqual(gate.history('run-f3').map((e) => `${e.name}/${e.outcome}`), ['read_file/allowed']);
});
