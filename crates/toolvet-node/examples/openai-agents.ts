// toolvet with the OpenAI Agents SDK: a denied call, and a call held for a
// person's approval, paused and resumed. A scripted model stands in for
// the real one, so this runs offline (with a real model, drop `model:`).
import { Agent, run, RunState, setTracingDisabled, tool } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { z } from 'zod';
import { Host } from '@toolvet/node';
import { Guard } from '@toolvet/node/openai-agents';

setTracingDisabled(true);
const host = await Host.fromFile('crates/toolvet-node/examples/toolvet.toml');
const guard = new Guard(host, { context: () => ({ runId: 'run-42', agent: 'ops' }) });

const deploy = tool({
  name: 'deploy',
  description: 'Deploy the service to an environment.',
  parameters: z.object({ env: z.string() }),
  execute: async ({ env }) => `deployed to ${env}`,
});
const dropDatabase = tool({
  name: 'drop_database',
  description: 'Drop a database.',
  parameters: z.object({ name: z.string() }),
  execute: async () => 'dropped',
});

const model = new ScriptedModel([
  [functionCall('drop_database', { name: 'prod' }, { callId: 'call_1' })],
  [functionCall('deploy', { env: 'prod' }, { callId: 'call_2' })],
  [assistantMessage('Deployed to prod; the database stays.')],
]);
const agent = new Agent({ name: 'ops', model, tools: guard.tools([deploy, dropDatabase]) });

let result = await run<typeof agent, unknown>(agent, 'Drop the prod database, then deploy to prod.');
while (result.interruptions.length > 0) {
  // Keep the paused run on the server (a RunState from a client can be forged).
  const state = await RunState.fromString(agent, result.state.toString());
  for (const item of state.getInterruptions()) {
    const held = await guard.held(state, item);
    console.log(`held: ${item.name} (${held.approval?.status}): ${held.reason}`);
    await guard.approve(state, item, 'alice', { message: 'release window' });
  }
  result = await run(agent, state);
}
for (const item of result.newItems) {
  if (item.type === 'tool_call_output_item') {
    console.log(`tool result: ${String(item.output).slice(0, 60)}`);
  }
}
console.log(`final: ${result.finalOutput}`);
