// toolvet for the Vercel AI SDK (`ai`): guarded tools and a decision tool.
//
// A guarded tool's `needsApproval` asks toolvet: an escalate uses the
// SDK's own tool approval (the step ends with a `tool-approval-request`;
// the next call carries a `tool-approval-response`). Its `execute` is the
// enforcement point: a deny returns the reason as the tool result the
// model reads; an approved call runs once toolvet's ledger has the
// approval (an approval response found in the messages is recorded there
// under the guard's reviewer, unless someone decided first) and the
// ticket was used. `respond` records a person's decision and builds the
// approval response, with toolvet's reason as the text the model reads on
// a rejection. What `execute` returns is vetted before the SDK hands it to
// the model: unchanged, masked, or in its place why toolvet withheld it.

import { jsonSchema, tool as sdkTool } from 'ai';
import type { ModelMessage, Tool, ToolApprovalResponse, ToolSet } from 'ai';
import type { CallContext, ToolInfo, Verdict } from '#native';
import { ApprovalError } from './errors.js';
import {
  consult,
  DECISION_TOOL_DESCRIPTION,
  denyMessage,
  Gate,
  holdMessage,
  resultOutput,
  type DecisionResult,
  type FrameworkAnswer,
  type GatedCall,
  type GateOptions,
} from './gate.js';
import type { Vetter } from './host.js';
import { parseDecisionQuery } from './parse.js';

/** How guarded tools describe their calls to toolvet. */
export interface AiSdkOptions extends GateOptions {
  /**
   * The run the calls belong to (agent, run id such as the chat id,
   * principal). Approvals are bound to the run id: make one guard per chat.
   * The gate adds the user's home (`home`) and working directory (`cwd`)
   * to its attributes unless they name them (`withPlace`).
   */
  context?: CallContext;
  /** What the owner declares about each tool (risk, tags, `requiresApproval`). */
  toolInfo?: (toolName: string) => ToolInfo | undefined;
  /**
   * Who an approval response found in the messages is recorded as in
   * toolvet's ledger (default `ai-sdk`); `respond` names the reviewer itself.
   */
  reviewer?: string;
}

/** A tool call the SDK asks approval for (the part's `toolCall`). */
export interface ApprovalToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** The SDK's approval request part (`type: 'tool-approval-request'` in a step's content). */
export interface ApprovalRequestPart {
  approvalId: string;
  toolCall: ApprovalToolCall;
}

/** A person's decision about an approval request. */
export interface Decision {
  approved: boolean;
  reviewer: string;
  message?: string;
  /** Approvals only: `run` approves the same tool and arguments for the rest of the run. */
  scope?: 'once' | 'run';
}

// The SDK's execute/needsApproval options, as far as the guard reads them.
interface CallOptions {
  toolCallId: string;
  messages: ModelMessage[];
}

/** The approval response for `toolCallId` in `messages`, if the SDK's caller sent one. */
function approvalIn(messages: readonly ModelMessage[], toolCallId: string): { approved: boolean; reason?: string } | undefined {
  const approvalIds = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') {
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'tool-approval-request' && part.toolCallId === toolCallId) {
        approvalIds.add(part.approvalId);
      }
    }
  }
  for (const message of messages) {
    if (message.role !== 'tool') {
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'tool-approval-response' && approvalIds.has(part.approvalId)) {
        return part.reason === undefined ? { approved: part.approved } : { approved: part.approved, reason: part.reason };
      }
    }
  }
  return undefined;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

/**
 * The last value of a streaming tool's output: the SDK hands the model
 * only that one (earlier ones are preliminary, for the interface). The
 * guarded copy returns it alone, vetted, so no preliminary value is shown
 * before the result is vetted.
 */
async function lastOf(values: AsyncIterable<unknown>): Promise<unknown> {
  let last: unknown;
  for await (const value of values) {
    last = value;
  }
  return last;
}

/** The guard of a set of tools: their guarded copies, and the answers to their approval requests. */
export class Guard {
  readonly gate: Gate;
  readonly #options: AiSdkOptions;

  constructor(host: Vetter, options: AiSdkOptions = {}) {
    this.gate = new Gate(host, options);
    this.#options = options;
  }

  /**
   * A copy of tool `name` that toolvet vets. The tool must run on the
   * server (have `execute`): a client-side or provider-executed tool
   * cannot be held back here, so it is refused.
   */
  tool<T extends Tool>(name: string, tool: T): T {
    const execute = tool.execute;
    if (typeof execute !== 'function') {
      throw new TypeError(
        `tool \`${name}\` has no execute function: toolvet can only guard tools that run here (check client-side tools where they run)`,
      );
    }
    const guarded = {
      ...tool,
      needsApproval: async (input: unknown, options: CallOptions) => {
        const call = this.#call(name, input, options.toolCallId);
        if (approvalIn(options.messages, options.toolCallId) !== undefined) {
          // The SDK re-asks before running a call the messages approve:
          // open nothing here, so `execute` sees whether toolvet held it.
          return (await this.gate.preview(call)).decision === 'escalate';
        }
        const verdict = await this.gate.verdict(call);
        // Approved in toolvet already (a reviewer page, the CLI): no pause;
        // `execute` uses the approval.
        return verdict.decision === 'escalate' && verdict.approval?.status !== 'approved';
      },
      execute: async (input: unknown, options: CallOptions) => {
        const sent = approvalIn(options.messages, options.toolCallId);
        let answer: FrameworkAnswer | undefined;
        if (sent?.approved === true) {
          answer = { approved: true, reviewer: this.#options.reviewer ?? 'ai-sdk' };
          if (sent.reason !== undefined) {
            answer.message = sent.reason;
          }
        }
        const call = this.#call(name, input, options.toolCallId);
        const verdict = await this.gate.settle(call, answer);
        switch (verdict.decision) {
          case 'allow': {
            let output: unknown;
            try {
              output = await (execute as (input: unknown, options: CallOptions) => unknown)(input, options);
            } catch (error) {
              // The SDK gives the model the error's message: vetted as the result (`isError`).
              if (this.gate.host.vetsResults !== true) {
                throw error;
              }
              const message = error instanceof Error ? error.message : String(error);
              const vetted = await this.gate.vetResult(call, message, true);
              if (vetted.action === 'pass') {
                throw error;
              }
              throw new Error(String(resultOutput(vetted, message)));
            }
            if (this.gate.host.vetsResults !== true) {
              return output;
            }
            const final = isAsyncIterable(output) ? await lastOf(output) : output;
            return resultOutput(await this.gate.vetResult(call, final), final);
          }
          case 'escalate':
            return holdMessage(verdict);
          default:
            return denyMessage(verdict);
        }
      },
    };
    return guarded as unknown as T;
  }

  /** Guarded copies of every tool in `tools`. */
  tools<T extends ToolSet>(tools: T): T {
    return Object.fromEntries(Object.entries(tools).map(([name, t]) => [name, this.tool(name, t)])) as T;
  }

  /**
   * What toolvet holds about an approval request: its escalate verdict
   * (request id, reason). `reason` is the checks' text as is: show it to a
   * person through `visible`.
   */
  async held(request: ApprovalRequestPart): Promise<Verdict> {
    const { toolCallId, toolName, input } = request.toolCall;
    return this.gate.verdict(this.#call(toolName, input, toolCallId));
  }

  /**
   * A person's decision about `request`, recorded in toolvet's ledger (the
   * first decision stands), as the `tool-approval-response` part to send
   * in a `tool` message with the next call. On a rejection the part's
   * reason is toolvet's ("<reviewer> rejected this call: <message>"),
   * which the model reads.
   * @throws {ApprovalError} the ledger refused the decision (not `already-decided`).
   */
  async respond(request: ApprovalRequestPart, decision: Decision): Promise<ToolApprovalResponse> {
    const { toolCallId, toolName, input } = request.toolCall;
    const call = this.#call(toolName, input, toolCallId);
    const base = { type: 'tool-approval-response' as const, approvalId: request.approvalId };
    if (!decision.approved) {
      const answer: FrameworkAnswer = { approved: false, reviewer: decision.reviewer };
      if (decision.message !== undefined) {
        answer.message = decision.message;
      }
      const verdict = await this.gate.reject(call, answer);
      return { ...base, approved: false, reason: verdict.reason ?? `${decision.reviewer} rejected this call` };
    }
    const held = await this.gate.verdict(call);
    if (held.decision === 'escalate' && held.approval?.status === 'pending') {
      const options = { ...(decision.message === undefined ? {} : { message: decision.message }), ...(decision.scope ? { scope: decision.scope } : {}) };
      try {
        await this.gate.host.approve(held.approval.id, decision.reviewer, options);
      } catch (error) {
        if (!(error instanceof ApprovalError && error.kind === 'already-decided')) {
          throw error;
        }
      }
    }
    return decision.message === undefined ? { ...base, approved: true } : { ...base, approved: true, reason: decision.message };
  }

  #call(name: string, input: unknown, toolCallId: string): GatedCall {
    const args = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
    const gated: GatedCall = { call: { id: toolCallId, name, arguments: args } };
    if (this.#options.context !== undefined) {
      gated.context = this.#options.context;
    }
    const info = this.#options.toolInfo?.(name);
    if (info !== undefined) {
      gated.tool = info;
    }
    return gated;
  }
}

/** Guarded copies of `tools` (see `Guard.tools`). */
export function guardTools<T extends ToolSet>(tools: T, host: Vetter, options: AiSdkOptions = {}): T {
  return new Guard(host, options).tools(tools);
}

/**
 * The policy as a tool the model can consult before acting: given a tool
 * name and arguments, it answers `{status, answer}` without opening an
 * approval request. Invalid arguments go back to the model as the SDK's
 * invalid-input tool error.
 */
export function decisionTool(host: Vetter, options: { context?: CallContext } = {}) {
  const schema = jsonSchema<{ tool: string; arguments: Record<string, unknown> }>(
    {
      type: 'object',
      properties: {
        tool: { type: 'string', description: 'The tool you would call.' },
        arguments: { type: 'object', description: 'The arguments you would call it with.', additionalProperties: true },
      },
      required: ['tool', 'arguments'],
      additionalProperties: false,
    },
    {
      validate: (value) => {
        try {
          return { success: true, value: parseDecisionQuery(value) };
        } catch (error) {
          return { success: false, error: error as Error };
        }
      },
    },
  );
  return sdkTool({
    description: DECISION_TOOL_DESCRIPTION,
    inputSchema: schema,
    execute: async (query): Promise<DecisionResult> => consult(host, query, options.context),
  });
}
