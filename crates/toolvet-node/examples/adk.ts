// toolvet with ADK-TS: the plugin on an App, a denied call, and a call
// held for a person's confirmation, paused and resumed on the reply. A
// scripted model stands in for Gemini, so this runs offline.
import {
  App,
  BaseLlm,
  FunctionTool,
  getAskUserConfirmationFunctionCalls,
  InMemorySessionService,
  LlmAgent,
  LogLevel,
  Runner,
  setLogLevel,
  type BaseLlmConnection,
  type LlmResponse,
} from '@google/adk';
import type { Content } from '@google/genai';
import { z } from 'zod';
import { Host } from '@toolvet/node';
import { confirmationReply, gateTools, ToolvetSecurityPlugin } from '@toolvet/node/adk';

class ScriptedModel extends BaseLlm {
  constructor(private readonly turns: LlmResponse[]) {
    super({ model: 'scripted' });
  }
  override async *generateContentAsync(): AsyncGenerator<LlmResponse, void> {
    yield this.turns.shift() ?? { content: { role: 'model', parts: [{ text: 'done' }] } };
  }
  override connect(): Promise<BaseLlmConnection> {
    throw new Error('not live');
  }
}
const call = (id: string, name: string, args: Record<string, unknown>): LlmResponse => ({
  content: { role: 'model', parts: [{ functionCall: { id, name, args } }] },
});

// ADK logs its INFO lines to stdout; keep this example's output to its own.
setLogLevel(LogLevel.ERROR);
const host = await Host.fromFile('crates/toolvet-node/examples/toolvet.toml');
const plugin = new ToolvetSecurityPlugin(host);
const tools = [
  new FunctionTool({
    name: 'deploy',
    description: 'Deploy the service to an environment.',
    parameters: z.object({ env: z.string() }),
    execute: ({ env }) => ({ deployed: env }),
  }),
  new FunctionTool({
    name: 'drop_database',
    description: 'Drop a database.',
    parameters: z.object({ name: z.string() }),
    execute: () => ({ dropped: true }),
  }),
];
const rootAgent = new LlmAgent({
  name: 'ops',
  model: new ScriptedModel([call('fc1', 'drop_database', { name: 'prod' }), call('fc2', 'deploy', { env: 'prod' })]),
  // gateTools: ADK-TS resumes a confirmed call only for a tool that gates it.
  tools: gateTools(tools, plugin.adk),
});
// The plugin is loaded from the App (an agent directory exporting only
// `rootAgent` would run without it).
export const app = new App({ name: 'ops_app', rootAgent, plugins: [plugin] });

const sessions = new InMemorySessionService();
const runner = new Runner({ app, sessionService: sessions });
const session = await sessions.createSession({ appName: 'ops_app', userId: 'alice' });
let message: Content | undefined = { role: 'user', parts: [{ text: 'Drop the prod database, then deploy.' }] };
while (message !== undefined) {
  let next: Content | undefined;
  for await (const event of runner.runAsync({ userId: 'alice', sessionId: session.id, newMessage: message })) {
    for (const part of event.content?.parts ?? []) {
      if (part.functionResponse) {
        console.log(`tool result: ${JSON.stringify(part.functionResponse.response).slice(0, 70)}`);
      }
    }
    for (const request of getAskUserConfirmationFunctionCalls(event)) {
      const hint = (request.args?.toolConfirmation as { hint?: string } | undefined)?.hint;
      console.log(`held: ${hint}`);
      next = confirmationReply(request, { confirmed: true, message: 'release window' });
    }
  }
  message = next;
}
const [request] = await host.approvals({ status: 'consumed' });
console.log(`ledger: ${request?.call.tool} ${request?.status} by ${request?.review?.reviewer}`);
