// The Host's result vetting against the real `contract-02` check: pass,
// redact and withhold; labels kept per run in the host and handed to the
// run's later calls; labels a caller sends refused.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Gate, Host, resultOutput, withheldMessage } from '@toolvet/node';
import { INJECTED_PAGE, INJECTION_REASON, resultsHost, testHost } from './support.js';

/** The call methods of `host`, as a vetter of its own. */
const vetterOf = (host: Host) => ({
  check: host.check.bind(host),
  resume: host.resume.bind(host),
  preview: host.preview.bind(host),
  approve: host.approve.bind(host),
  reject: host.reject.bind(host),
});

const fetchCall = (id: string) => ({ id, name: 'fetch_page', arguments: { url: 'https://example.com' } });
const mailCall = (id: string) => ({ id, name: 'send_email', arguments: { to: 'bob@example.com', body: 'hi' } });

test('a result passes, is masked, or is withheld with the check reason and no content', async () => {
  const host = await resultsHost();
  assert.equal(host.vetsResults, true);
  const passed = await host.checkResult(fetchCall('c1'), { content: 'plain text' });
  assert.equal(passed.action, 'pass');
  assert.equal(passed.content, 'plain text');
  assert.deepEqual(passed.labels, []);

  const masked = await host.checkResult(fetchCall('c2'), { content: 'key SECRET-abc123 here' });
  assert.equal(masked.action, 'redact');
  assert.equal(masked.content, 'key [redacted: secret] here');
  assert.deepEqual(masked.labels.map((l) => [l.name, l.check, l.tool, l.callId]), [['secret-seen', 'contract02', 'fetch_page', 'c2']]);
  const outcome = masked.checks.find((c) => c.check === 'contract02');
  assert.equal(outcome?.action, 'redact');
  assert.equal(outcome?.masks, 1);

  const json = await host.checkResult(fetchCall('c3'), { content: { token: 'abc', user: 'bob' } });
  assert.equal(json.action, 'redact');
  assert.deepEqual(json.content, { token: '[redacted: token]', user: 'bob' });

  const withheld = await host.checkResult(fetchCall('c4'), { content: INJECTED_PAGE, isError: false });
  assert.equal(withheld.action, 'withhold');
  assert.equal(withheld.content, undefined);
  assert.equal(withheld.rule, 'contract02.injection');
  assert.equal(withheld.decidedBy, 'contract02');
  assert.equal(withheld.reason, INJECTION_REASON);
  assert.equal(withheldMessage(withheld), `Withheld by toolvet: ${INJECTION_REASON}`);
  assert.equal(resultOutput(withheld, INJECTED_PAGE), `Withheld by toolvet: ${INJECTION_REASON}`);

  const sync = host.checkResultSync(fetchCall('c5'), { content: INJECTED_PAGE });
  assert.equal(sync.action, 'withhold');
  assert.equal(sync.rule, 'contract02.injection');
});

test("a label a result raises escalates the run's later calls, and only that run's", async () => {
  const host = await resultsHost();
  const run = { runId: 'r1', agent: 'ops' };
  assert.equal((await host.check(mailCall('c1'), undefined, run)).decision, 'allow');
  const withheld = await host.checkResult(fetchCall('c2'), { content: INJECTED_PAGE }, run);
  assert.deepEqual(withheld.labels.map((l) => l.name), ['untrusted-content']);

  const later = await host.check(mailCall('c3'), undefined, run);
  assert.equal(later.decision, 'escalate');
  assert.equal(later.rule, 'contract02.labelled');
  assert.equal(later.reason, 'the run read untrusted content (from fetch_page)');
  assert.equal(host.checkSync(mailCall('c4'), undefined, run).rule, 'contract02.labelled');
  assert.equal((await host.preview(mailCall('c5'), undefined, run)).rule, 'contract02.labelled');

  // Another run, another agent of the same run id, no run: no label.
  assert.equal((await host.check(mailCall('c6'), undefined, { runId: 'r2', agent: 'ops' })).decision, 'allow');
  assert.equal((await host.check(mailCall('c7'), undefined, { runId: 'r1', agent: 'other' })).decision, 'allow');
  assert.equal((await host.check(mailCall('c8'))).decision, 'allow');
  // Calls and results without a run id share one run per principal and
  // agent: a label one raised holds the others, not another agent's.
  const noRun = await host.checkResult(fetchCall('c10'), { content: INJECTED_PAGE });
  assert.deepEqual(noRun.labels.map((l) => l.name), ['untrusted-content']);
  assert.equal((await host.check(mailCall('c11'))).rule, 'contract02.labelled');
  assert.equal((await host.check(mailCall('c12'), undefined, { agent: 'other' })).decision, 'allow');
  assert.equal((await host.check(mailCall('c13'), undefined, { runId: 'r3' })).decision, 'allow');
});

test('labels a caller sends are refused: the call is denied and the result withheld, naming context.labels', async () => {
  const host = await resultsHost();
  const sent = { runId: 'r1', labels: [] } as unknown as Parameters<Host['check']>[2];
  for (const verdict of [await host.check(mailCall('c1'), undefined, sent), host.checkSync(mailCall('c2'), undefined, sent)]) {
    assert.equal(verdict.decision, 'deny');
    assert.equal(verdict.rule, 'toolvet.invalid-call');
    assert.match(verdict.reason ?? '', /^invalid tool call: `context\.labels`: the host keeps each run's labels itself/);
  }
  const result = await host.checkResult(fetchCall('c3'), { content: 'plain' }, sent);
  assert.equal(result.action, 'withhold');
  assert.equal(result.rule, 'toolvet.invalid-call');
  assert.equal(result.content, undefined);
  assert.match(result.reason ?? '', /`context\.labels`/);
});

test('a policy without result checks passes every result, and a gate does not ask it', async () => {
  const host = await testHost();
  assert.equal(host.vetsResults, false);
  const passed = await host.checkResult(fetchCall('c1'), { content: INJECTED_PAGE });
  assert.equal(passed.action, 'pass');
  let asked = 0;
  const counting = {
    ...vetterOf(host),
    vetsResults: host.vetsResults,
    checkResult: () => {
      asked += 1;
      return Promise.reject(new Error('not to be asked'));
    },
  };
  const skipped = await new Gate(counting).vetResult({ call: fetchCall('c2') }, INJECTED_PAGE);
  assert.equal(skipped.action, 'pass');
  assert.equal(asked, 0);
});

test('a gate withholds a result the host fails on, or one JSON cannot hold', async () => {
  const host = await resultsHost();
  const failing = {
    ...vetterOf(host),
    vetsResults: true,
    checkResult: () => Promise.reject(new Error('the policy engine is down')),
  };
  const failed = await new Gate(failing).vetResult({ call: fetchCall('c1') }, 'plain');
  assert.equal(failed.action, 'withhold');
  assert.equal(failed.rule, 'toolvet.host-error');
  assert.equal(resultOutput(failed, 'plain'), 'Withheld by toolvet: toolvet failed while vetting this result, so it is withheld: the policy engine is down');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal((await new Gate(host).vetResult({ call: fetchCall('c2') }, cyclic)).action, 'withhold');
  const bigint = await new Gate(host).vetResult({ call: fetchCall('c3') }, { n: 1n });
  assert.equal(bigint.action, 'withhold');
});
