// The OpenAI Agents SDK adapter against the real `@openai/agents`, with
// the SDK's own scripted model: no network.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Agent, run, RunState, setTracingDisabled, tool } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { z } from 'zod';
import { decisionTool, guard, Guard } from '@toolvet/node/openai-agents';
import { brokenHost, DROP_REASON, INJECTED_PAGE, INJECTION_REASON, resultsHost, Runs, testHost } from './support.js';

setTracingDisabled(true);

function tools(runs: Runs) {
  const deploy = tool({
    name: 'deploy',
    description: 'Deploy a service.',
    parameters: z.object({ env: z.string() }),
    execute: async ({ env }) => {
      runs.record({ env });
      return `deployed to ${env}`;
    },
  });
  const dropDatabase = tool({
    name: 'drop_database',
    description: 'Drop the database.',
    parameters: z.object({ name: z.string() }),
    execute: async (args) => {
      runs.record(args);
      return 'dropped';
    },
  });
  return { deploy, dropDatabase };
}

/** The tool results the model was sent in its last request. */
function toolResults(model: ScriptedModel): string[] {
  const input = model.lastCall?.request.input;
  assert.ok(Array.isArray(input), 'the model got the conversation');
  return input.flatMap((item) => {
    if (item.type !== 'function_call_result') {
      return [];
    }
    const output: unknown = item.output;
    if (typeof output === 'string') {
      return [output];
    }
    const text = (output as { text?: unknown }).text;
    assert.equal(typeof text, 'string', `a text tool result: ${JSON.stringify(output)}`);
    return [text as string];
  });
}

test('a deny reaches the model with the reason, and the tool does not run', async () => {
  const host = await testHost();
  const runs = new Runs();
  const model = new ScriptedModel([
    [functionCall('drop_database', { name: 'prod' }, { callId: 'call_1' })],
    [assistantMessage('I may not do that.')],
  ]);
  const agent = new Agent({ name: 'ops', model, tools: [guard(tools(runs).dropDatabase, host)] });
  const result = await run(agent, 'Drop the prod database.');
  assert.equal(result.interruptions.length, 0, 'a deny is no pause');
  assert.equal(result.finalOutput, 'I may not do that.');
  const [output] = toolResults(model);
  assert.ok(output?.startsWith(`Blocked by policy: ${DROP_REASON}`), output);
  assert.equal(runs.count, 0);
});

test('an escalate pauses through result.interruptions; approving runs the tool once', async () => {
  const host = await testHost();
  const runs = new Runs();
  const model = new ScriptedModel([
    [functionCall('deploy', { env: 'prod' }, { callId: 'call_1' })],
    [assistantMessage('Deployed.')],
  ]);
  const guardian = new Guard(host, { context: () => ({ runId: 'run-1', agent: 'ops' }) });
  const agent = new Agent({ name: 'ops', model, tools: [guardian.tool(tools(runs).deploy)] });
  const first = await run(agent, 'Deploy to prod.');
  assert.equal(runs.count, 0, 'held: the tool has not run');
  const [item] = first.interruptions;
  assert.ok(item);
  assert.equal(item.name, 'deploy');
  const held = await guardian.held(first.state, item);
  assert.equal(held.decision, 'escalate');
  assert.equal(held.rule, 'policy.requires-approval');
  const [pending] = await host.pending();
  assert.equal(pending?.id, held.approval?.id);
  assert.equal(pending?.call.callId, 'call_1');

  // The pause survives serialization, as a server would keep it.
  const state = await RunState.fromString(agent, first.state.toString());
  const [restored] = state.getInterruptions();
  assert.ok(restored);
  await guardian.approve(state, restored, 'alice', { message: 'release window' });
  const second = await run(agent, state);
  assert.equal(second.finalOutput, 'Deployed.');
  assert.equal(runs.count, 1);
  assert.deepEqual(runs.args, [{ env: 'prod' }]);
  assert.deepEqual(toolResults(model), ['deployed to prod']);
  const decided = await host.approval(pending.id);
  assert.equal(decided.status, 'consumed');
  assert.equal(decided.review?.reviewer, 'alice');
  // Asked again after it ran, the call may not run again.
  const again = await guardian.gate.verdict({ call: { id: 'call_1', name: 'deploy', arguments: { env: 'prod' } }, context: { runId: 'run-1', agent: 'ops' } });
  assert.equal(again.rule, 'approval.replayed');
});

test('a rejection in toolvet stands: approving the interruption afterwards runs nothing', async () => {
  const host = await testHost();
  const runs = new Runs();
  const model = new ScriptedModel([[functionCall('deploy', { env: 'prod' }, { callId: 'call_r' })], [assistantMessage('ok')]]);
  const guardian = new Guard(host);
  const agent = new Agent({ name: 'ops', model, tools: [guardian.tool(tools(runs).deploy)] });
  const first = await run(agent, 'Deploy.');
  const [item] = first.interruptions;
  assert.ok(item);
  const [pending] = await host.pending();
  assert.ok(pending);
  await host.reject(pending.id, 'bob', { message: 'freeze' });
  await guardian.approve(first.state, item, 'mallory');
  await run(agent, first.state);
  assert.equal(runs.count, 0);
  assert.deepEqual(toolResults(model), ['Blocked by policy: bob rejected this call: freeze']);
  assert.deepEqual((await host.approvals({ status: 'all' })).map((r) => `${r.status}/${r.review?.reviewer}`), ['rejected/bob']);
});

test('one approval runs the call once, however often the paused state is resumed', async () => {
  const host = await testHost();
  const runs = new Runs();
  const script = () => [[functionCall('deploy', { env: 'prod' }, { callId: 'call_twice' })], [assistantMessage('ok')]];
  const model = new ScriptedModel([...script(), ...script().slice(1), ...script().slice(1)]);
  const agent = new Agent({ name: 'ops', model, tools: [new Guard(host).tool(tools(runs).deploy)] });
  const first = await run(agent, 'Deploy.');
  const saved = first.state.toString();
  for (const guardian of [new Guard(host), new Guard(host)]) {
    // Each resume in a process of its own: a new guard, the same saved state.
    const state = await RunState.fromString(agent, saved);
    const [item] = state.getInterruptions();
    assert.ok(item);
    await guardian.approve(state, item, 'alice');
    const resumedAgent = new Agent({ name: 'ops', model, tools: [guardian.tool(tools(runs).deploy)] });
    await run(resumedAgent, await RunState.fromString(resumedAgent, state.toString()));
  }
  assert.equal(runs.count, 1);
  const [output] = toolResults(model);
  assert.match(output ?? '', /^Blocked by policy: call `call_twice` was approved once \(request `apr_[0-9a-f]{32}`\) and that approval was used/);
  assert.deepEqual((await host.approvals({ status: 'all' })).map((r) => r.status), ['consumed']);
});

test('one approval runs the call once when the same state is resumed twice in one process', async () => {
  const host = await testHost();
  const runs = new Runs();
  const model = new ScriptedModel([[functionCall('deploy', { env: 'prod' }, { callId: 'call_same' })], [assistantMessage('ok')], [assistantMessage('ok')]]);
  const guardian = new Guard(host);
  const agent = new Agent({ name: 'ops', model, tools: [guardian.tool(tools(runs).deploy)] });
  const first = await run(agent, 'Deploy.');
  const [item] = first.state.getInterruptions();
  assert.ok(item);
  await guardian.approve(first.state, item, 'alice');
  const saved = first.state.toString();
  for (let i = 0; i < 2; i += 1) {
    await run(agent, await RunState.fromString(agent, saved));
  }
  assert.equal(runs.count, 1);
  const [output] = toolResults(model);
  assert.match(output ?? '', /^Blocked by policy: call `call_same` was approved once/);
  assert.deepEqual((await host.approvals({ status: 'all' })).map((r) => `${r.status}/${r.review?.reviewer}`), ['consumed/alice']);
});

// The rule every adapter follows: a held call runs only when both the SDK's
// approval and toolvet's say yes; a rejection in the SDK never spends
// toolvet's approval, and the model reads the rejection.
for (const how of ['guard', 'plain'] as const) {
  test(`a rejection after a toolvet approval runs nothing and spends nothing (${how})`, async () => {
    const host = await testHost();
    const runs = new Runs();
    const model = new ScriptedModel([[functionCall('deploy', { env: 'prod' }, { callId: 'call_both' })], [assistantMessage('ok')]]);
    const guardian = new Guard(host);
    const agent = new Agent({ name: 'ops', model, tools: [guardian.tool(tools(runs).deploy)] });
    const first = await run(agent, 'Deploy.');
    const [item] = first.interruptions;
    assert.ok(item);
    const [pending] = await host.pending();
    assert.ok(pending);
    await host.approve(pending.id, 'carol');
    if (how === 'guard') {
      await guardian.reject(first.state, item, 'bob', { message: 'not now' });
    } else {
      first.state.reject(item);
    }
    await run(agent, first.state);
    assert.equal(runs.count, 0);
    const [output] = toolResults(model);
    assert.ok(output !== undefined && !output.includes('approved by'), output);
    if (how === 'guard') {
      assert.equal(output, 'bob rejected this call: not now');
    }
    assert.deepEqual((await host.approvals({ status: 'all' })).map((r) => `${r.status}/${r.review?.reviewer}`), ['approved/carol']);
  });
}

test('alwaysApprove is not an approval of later calls: each held call needs its own', async () => {
  const host = await testHost();
  const runs = new Runs();
  const model = new ScriptedModel([
    [functionCall('deploy', { env: 'staging' }, { callId: 'call_a' })],
    [functionCall('deploy', { env: 'prod; rm -rf /' }, { callId: 'call_b' })],
    [assistantMessage('ok')],
  ]);
  const agent = new Agent({ name: 'ops', model, tools: [new Guard(host).tool(tools(runs).deploy)] });
  const first = await run(agent, 'Deploy twice.');
  const [item] = first.interruptions;
  assert.ok(item);
  first.state.approve(item, { alwaysApprove: true });
  await run(agent, first.state);
  assert.deepEqual(runs.args, [], 'neither call ran on a blanket approval');
  const outputs = toolResults(model);
  assert.ok(outputs.every((o) => o.startsWith('Held for approval (request apr_')), JSON.stringify(outputs));
});

test('state.approve alone is recorded in toolvet under the guard\'s reviewer', async () => {
  const host = await testHost();
  const runs = new Runs();
  const model = new ScriptedModel([[functionCall('deploy', { env: 'staging' }, { callId: 'call_7' })], [assistantMessage('ok')]]);
  const agent = new Agent({ name: 'ops', model, tools: [guard(tools(runs).deploy, host, { reviewer: 'on-call' })] });
  const first = await run(agent, 'Deploy to staging.');
  const [item] = first.interruptions;
  assert.ok(item);
  first.state.approve(item);
  await run(agent, first.state);
  assert.equal(runs.count, 1);
  const [request] = await host.approvals({ status: 'consumed' });
  assert.equal(request?.review?.reviewer, 'on-call');
});

test('rejecting gives the model the reviewer\'s message', async () => {
  const host = await testHost();
  const runs = new Runs();
  const model = new ScriptedModel([[functionCall('deploy', { env: 'prod' }, { callId: 'call_2' })], [assistantMessage('Understood.')]]);
  const guardian = new Guard(host);
  const agent = new Agent({ name: 'ops', model, tools: [guardian.tool(tools(runs).deploy)] });
  const first = await run(agent, 'Deploy to prod.');
  const [item] = first.interruptions;
  assert.ok(item);
  const verdict = await guardian.reject(first.state, item, 'bob', { message: 'not on a Friday' });
  assert.equal(verdict.rule, 'approval.rejected');
  await run(agent, first.state);
  assert.deepEqual(toolResults(model), ['bob rejected this call: not on a Friday']);
  assert.equal(runs.count, 0);
  const [rejected] = await host.approvals({ status: 'rejected' });
  assert.equal(rejected?.review?.message, 'not on a Friday');
});

test('a call toolvet holds runs only with toolvet\'s approval, however the SDK gets there', async () => {
  const host = await testHost();
  const runs = new Runs();
  const guarded = guard(tools(runs).deploy, host);
  const { RunContext } = await import('@openai/agents');
  // The SDK invoking the tool without any approval (e.g. needsApproval was
  // skipped): held, not run.
  const output = await guarded.invoke(new RunContext(), '{"env":"prod"}', {
    toolCall: { type: 'function_call', callId: 'call_3', name: 'deploy', arguments: '{"env":"prod"}' },
  });
  assert.match(String(output), /^Held for approval \(request apr_[0-9a-f]{32}\): /);
  assert.equal(runs.count, 0);
});

test('a host error is a deny: the tool does not run and the model reads why', async () => {
  const runs = new Runs();
  const model = new ScriptedModel([[functionCall('deploy', { env: 'prod' }, { callId: 'call_4' })], [assistantMessage('ok')]]);
  const agent = new Agent({ name: 'ops', model, tools: [guard(tools(runs).deploy, brokenHost)] });
  const result = await run(agent, 'Deploy.');
  assert.equal(result.interruptions.length, 0, 'no pause: needsApproval never throws');
  const [output] = toolResults(model);
  assert.equal(output, 'Blocked by policy: toolvet failed while vetting this call, so it is denied: the policy engine is down');
  assert.equal(runs.count, 0);
});

test('the decision tool answers {status, answer} and opens no request', async () => {
  const host = await testHost();
  const model = new ScriptedModel([
    [
      functionCall('toolvet_policy', { tool: 'deploy', arguments: { env: 'prod' } }, { callId: 'q1' }),
      functionCall('toolvet_policy', { tool: 'drop_database', arguments: {} }, { callId: 'q2' }),
      functionCall('toolvet_policy', { tool: 'read_file', arguments: { path: 'a' } }, { callId: 'q3' }),
      functionCall('toolvet_policy', { arguments: {} }, { callId: 'q4' }),
    ],
    [assistantMessage('noted')],
  ]);
  const agent = new Agent({ name: 'ops', model, tools: [decisionTool(host)] });
  await run(agent, 'What may I do?');
  const [deploy, drop, read, invalid] = toolResults(model);
  assert.equal(JSON.parse(deploy ?? '').status, 'escalate');
  assert.match(JSON.parse(deploy ?? '').answer, /^a person must approve this first: /);
  assert.deepEqual(Object.keys(JSON.parse(drop ?? '')), ['status', 'answer']);
  assert.equal(JSON.parse(drop ?? '').status, 'deny');
  assert.ok(JSON.parse(drop ?? '').answer.startsWith(DROP_REASON));
  assert.equal(JSON.parse(read ?? '').status, 'allow');
  assert.match(invalid ?? '', /invalid arguments: `tool` must be the name of the tool you would call/);
  assert.deepEqual(await host.approvals({ status: 'all' }), []);
});

test('argument text with a key twice is refused, and the tool does not run (review s22 F5)', async () => {
  const host = await testHost();
  const runs = new Runs();
  const echo = tool({
    name: 'echo',
    description: 'Say something.',
    parameters: z.object({ text: z.string() }),
    execute: async (args) => {
      runs.record(args);
      return args.text;
    },
  });
  const guardian = new Guard(host, { context: () => ({ runId: 'run-f5' }) });
  const model = new ScriptedModel([
    [functionCall('echo', '{"text":"rm -rf ~","text":"hi"}', { callId: 'call_1' })],
    [functionCall('echo', '{"opts":{"a":1,"\\u0061":2},"text":"hi"}', { callId: 'call_2' })],
    [functionCall('echo', '{"text":"hi","a":{"text":1}}', { callId: 'call_3' })],
    [assistantMessage('Done.')],
  ]);
  const agent = new Agent({ name: 'ops', model, tools: [guardian.tool(echo)] });
  await run(agent, 'Echo.');
  const [first, second, third] = toolResults(model);
  assert.equal(
    first,
    `Blocked by policy: the tool's arguments have the key "text" twice in one object; toolvet refuses them, since the tool's reader may take the copy the checks did not see`,
  );
  assert.match(second ?? '', /^Blocked by policy: the tool's arguments have the key "a" twice in one object/);
  assert.equal(third, 'hi', 'the same key in two objects is no repeat');
  assert.deepEqual(runs.args, [{ text: 'hi' }], 'once: the tool ran only the call without a repeated key');
});

test('a withheld result never reaches the model, a masked one reaches it masked, and its label holds the next call', async () => {
  const host = await resultsHost();
  const runs = new Runs();
  const fetchPage = tool({
    name: 'fetch_page',
    description: 'Fetch a web page.',
    parameters: z.object({ url: z.string() }),
    execute: async ({ url }) => {
      runs.record({ url });
      return url.endsWith('/injected') ? INJECTED_PAGE : 'the key is SECRET-abc123 today';
    },
  });
  const sendEmail = tool({
    name: 'send_email',
    description: 'Send an email.',
    parameters: z.object({ to: z.string() }),
    execute: async (args) => {
      runs.record(args);
      return 'sent';
    },
  });
  const model = new ScriptedModel([
    [functionCall('fetch_page', { url: 'https://example.com/keys' }, { callId: 'call_1' })],
    [functionCall('fetch_page', { url: 'https://example.com/injected' }, { callId: 'call_2' })],
    [functionCall('send_email', { to: 'evil@example.com' }, { callId: 'call_3' })],
    [assistantMessage('Done.')],
  ]);
  const guardian = new Guard(host, { context: () => ({ runId: 'run-results', agent: 'ops' }) });
  const agent = new Agent({ name: 'ops', model, tools: guardian.tools([fetchPage, sendEmail]) });
  const result = await run(agent, 'Read the pages, then answer by email.');

  assert.deepEqual(toolResults(model), ['the key is [redacted: secret] today', `Withheld by toolvet: ${INJECTION_REASON}`]);
  const seen = JSON.stringify(model.calls.map((c) => c.request.input));
  assert.ok(!seen.includes('IGNORE PREVIOUS'), 'the model never read the withheld page');
  assert.ok(!seen.includes('SECRET-abc123'), 'the model never read the secret');
  // The label of the withheld page holds the email for a person.
  const [item] = result.interruptions;
  assert.equal(item?.name, 'send_email');
  const held = await guardian.held(result.state, item);
  assert.equal(held.decision, 'escalate');
  assert.equal(held.rule, 'contract02.labelled');
  assert.equal(runs.count, 2, 'the email was not sent');
});
