// toolvet with the Vercel AI SDK: a denied call, and a call held through
// the SDK's tool approval, answered and resumed. A mock model stands in
// for the real one, so this runs offline.
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { Host } from '@toolvet/node';
import { Guard, type ApprovalRequestPart } from '@toolvet/node/ai-sdk';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const replies = [
  { toolCallId: 't1', toolName: 'drop_database', input: { name: 'prod' } },
  { toolCallId: 't2', toolName: 'deploy', input: { env: 'prod' } },
];
const model = new MockLanguageModelV3({
  doGenerate: async () => {
    const next = replies.shift();
    const content = next
      ? [{ type: 'tool-call' as const, ...next, input: JSON.stringify(next.input) }]
      : [{ type: 'text' as const, text: 'Deployed to prod; the database stays.' }];
    return { content, finishReason: { unified: next ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] };
  },
});

const host = await Host.fromFile('crates/toolvet-node/examples/toolvet.toml');
const guard = new Guard(host, { context: { runId: 'chat-42' } }); // one guard per chat
const tools = guard.tools({
  deploy: tool({
    description: 'Deploy the service to an environment.',
    inputSchema: z.object({ env: z.string() }),
    execute: async ({ env }) => `deployed to ${env}`,
  }),
  drop_database: tool({
    description: 'Drop a database.',
    inputSchema: z.object({ name: z.string() }),
    execute: async () => 'dropped',
  }),
});

let messages: ModelMessage[] = [{ role: 'user', content: 'Drop the prod database, then deploy.' }];
for (;;) {
  const result = await generateText({ model, tools, messages, stopWhen: stepCountIs(10) });
  messages = [...messages, ...result.response.messages];
  for (const part of result.steps.flatMap((s) => s.toolResults)) {
    console.log(`tool result: ${String(part.output).slice(0, 60)}`);
  }
  const requests = result.content.filter((p) => p.type === 'tool-approval-request') as ApprovalRequestPart[];
  if (requests.length === 0) {
    console.log(`final: ${result.text}`);
    break;
  }
  const answers = [];
  for (const request of requests) {
    console.log(`held: ${request.toolCall.toolName}: ${(await guard.held(request)).reason}`);
    answers.push(await guard.respond(request, { approved: true, reviewer: 'alice' }));
  }
  messages.push({ role: 'tool', content: answers });
}
