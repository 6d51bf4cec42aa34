// toolvet for the OpenAI Agents SDK (`@openai/agents`): a guarded copy of
// a function tool, and a decision tool.
//
// The copy's `needsApproval` asks toolvet: an escalate pauses the run
// (`result.interruptions`); a deny is not a pause: the copy's `invoke`
// answers the model with the reason instead of running the tool. Resume
// with `state.approve(item)` / `state.reject(item)`, or with `approve` /
// `reject` here, which also record the decision (reviewer, message) in
// toolvet's ledger and give the model the reviewer's message.
//
// The copy's `invoke` is the enforcement point: whatever path leads to
// running the tool passes it, and it runs the original only on an allow
// (for a held call: once toolvet's ledger has the approval and the ticket
// was used). What the tool returns is vetted there too, before the SDK
// hands it to the model: the model reads it unchanged, masked, or in its
// place why toolvet withheld it; the labels it raises reach the run's
// later calls.

import { randomUUID } from 'node:crypto';
import { tool as functionTool } from '@openai/agents';
import type { FunctionTool, RunContext, RunState, RunToolApprovalItem } from '@openai/agents';
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
  type GatedCall,
  type GateOptions,
} from './gate.js';
import { type ReviewOptions, type Vetter } from './host.js';
import { parseDecisionQuery, parseJsonObject } from './parse.js';

/** How guarded tools describe their calls to toolvet. */
export interface GuardOptions extends GateOptions {
  /**
   * The run each call belongs to (agent, run id, principal, attributes),
   * from the run's context. Approvals are bound to the run id, so give one
   * that survives a serialized `RunState` (e.g. from `runContext.context`).
   * Default: no run id (approvals bind to the model's call ids). The gate
   * adds the user's home (`home`) and working directory (`cwd`) to its
   * attributes unless they name them (`withPlace`).
   */
  context?: (runContext: RunContext<unknown>) => CallContext;
  /** What the owner declares about each tool (risk, tags, `requiresApproval`). */
  toolInfo?: (toolName: string) => ToolInfo | undefined;
  /**
   * Who an approval given with `state.approve(item)` is recorded as in
   * toolvet's ledger (default `openai-agents`). `approve` / `reject` here
   * name the reviewer themselves.
   */
  reviewer?: string;
}

// FunctionTool<any, any, any>: the guard keeps each tool's own types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyFunctionTool = FunctionTool<any, any, any>;
// RunState<any, any>: a run's state, whatever its context and agent types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRunState = RunState<any, any>;

/** The guard of a set of tools: their guarded copies, and the answers to their interruptions. */
export class Guard {
  readonly gate: Gate;
  readonly #options: GuardOptions;

  constructor(host: Vetter, options: GuardOptions = {}) {
    this.gate = new Gate(host, options);
    this.#options = options;
  }

  /**
   * A copy of `tool` that toolvet vets: an escalate pauses the run through
   * `needsApproval`, a deny answers the model with the reason, an allow
   * runs the original, whose output is vetted in turn (`Gate.vetResult`,
   * `resultOutput`: the model reads it unchanged, masked, or
   * "Withheld by toolvet: <reason>" in its place).
   */
  tool<T extends AnyFunctionTool>(tool: T): T {
    const guarded: T = {
      ...tool,
      needsApproval: async (runContext: RunContext<unknown>, input: unknown, callId?: string) => {
        const call = this.#call(runContext, tool.name, input, callId);
        if (callId !== undefined && approvedOnce(runContext, tool.name, callId) === true) {
          // Asked again for a call the run's state approves: open nothing
          // here, so `invoke` sees whether toolvet held it.
          return (await this.gate.preview(call)).decision === 'escalate';
        }
        const verdict = await this.gate.verdict(call);
        // Approved in toolvet already (a reviewer page, the CLI): no pause;
        // `invoke` uses the approval.
        return verdict.decision === 'escalate' && verdict.approval?.status !== 'approved';
      },
      invoke: async (runContext: RunContext<unknown>, input: string, details?: Parameters<T['invoke']>[2]) => {
        const callId = details?.toolCall?.callId;
        let args: Record<string, unknown>;
        try {
          args = parseJsonObject(input);
        } catch (error) {
          return `Blocked by policy: ${(error as Error).message}`;
        }
        const call = this.#call(runContext, tool.name, args, callId);
        const approved = callId === undefined ? undefined : approvedOnce(runContext, tool.name, callId);
        const answer =
          approved === true ? { approved: true, reviewer: this.#options.reviewer ?? 'openai-agents' } : undefined;
        const verdict = await this.gate.settle(call, answer);
        switch (verdict.decision) {
          case 'allow': {
            const output: unknown = await tool.invoke(runContext, input, details);
            return resultOutput(await this.gate.vetResult(call, output), output);
          }
          case 'escalate':
            return holdMessage(verdict);
          default:
            return denyMessage(verdict);
        }
      },
    };
    return guarded;
  }

  /** Guarded copies of `tools`. */
  tools<T extends AnyFunctionTool>(tools: readonly T[]): T[] {
    return tools.map((t) => this.tool(t));
  }

  /**
   * What toolvet holds about an interruption: the escalate verdict with
   * the approval request (`approval.id`) and why (`reason`), for a reviewer's view.
   * `reason` is the checks' text as is: show it to a person through `visible`.
   */
  async held(state: AnyRunState, item: RunToolApprovalItem): Promise<Verdict> {
    return this.gate.verdict(this.#itemCall(state, item));
  }

  /**
   * Approve an interruption: record it in toolvet's ledger as `reviewer`
   * (unless someone decided first: the first decision stands), then
   * `state.approve(item)`. Resume with `run(agent, state)`; the tool runs
   * once, when the guarded copy uses the approval.
   * @throws {ApprovalError} the ledger refused the decision (not `already-decided`).
   */
  async approve(
    state: AnyRunState,
    item: RunToolApprovalItem,
    reviewer: string,
    options: ReviewOptions = {},
  ): Promise<void> {
    const held = await this.held(state, item);
    if (held.decision === 'escalate' && held.approval?.status === 'pending') {
      try {
        await this.gate.host.approve(held.approval.id, reviewer, options);
      } catch (error) {
        if (!(error instanceof ApprovalError && error.kind === 'already-decided')) {
          throw error;
        }
      }
    }
    state.approve(item);
  }

  /**
   * Reject an interruption: record it in toolvet's ledger as `reviewer`,
   * then `state.reject(item)` with toolvet's reason ("<reviewer> rejected
   * this call: <message>") as the text the model reads. Returns the deny
   * verdict.
   */
  async reject(
    state: AnyRunState,
    item: RunToolApprovalItem,
    reviewer: string,
    options: Omit<ReviewOptions, 'scope'> = {},
  ): Promise<Verdict> {
    const answer = { approved: false, reviewer, ...options };
    const verdict = await this.gate.reject(this.#itemCall(state, item), answer);
    state.reject(item, { message: verdict.reason ?? `${reviewer} rejected this call` });
    return verdict;
  }

  #itemCall(state: AnyRunState, item: RunToolApprovalItem): GatedCall {
    const raw = item.rawItem as { callId?: string };
    let args: Record<string, unknown> = {};
    try {
      args = parseJsonObject(item.arguments ?? '{}');
    } catch {
      // The guard denies such a call; asking about `{}` finds no request.
    }
    return this.#call(state._context, item.name ?? '', args, raw.callId);
  }

  #call(runContext: RunContext<unknown>, name: string, input: unknown, callId: string | undefined): GatedCall {
    const args = input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {};
    const gated: GatedCall = { call: { name, arguments: args as Record<string, unknown> } };
    if (callId !== undefined) {
      gated.call.id = callId;
    }
    const context = this.#options.context?.(runContext);
    if (context !== undefined) {
      gated.context = context;
    }
    const info = this.#options.toolInfo?.(name);
    if (info !== undefined) {
      gated.tool = info;
    }
    return gated;
  }
}

/**
 * Whether the run's state approves call `callId` of `toolName` itself:
 * `state.approve(item, { alwaysApprove: true })` approves every call of
 * the tool, whatever its arguments, which toolvet does not honour (each
 * held call needs its own approval; toolvet's `scope: 'run'` approves the
 * same tool and arguments for the rest of a run). Such a state answers
 * `true` for a call id nobody approved, which is how it is told apart.
 */
function approvedOnce(runContext: RunContext<unknown>, toolName: string, callId: string): boolean | undefined {
  const approved = runContext.isToolApproved({ toolName, callId });
  if (approved !== true) {
    return approved;
  }
  const probe = `toolvet-probe-${randomUUID()}`;
  return runContext.isToolApproved({ toolName, callId: probe }) === true ? undefined : true;
}

/** A guarded copy of `tool` (see `Guard.tool`). */
export function guard<T extends AnyFunctionTool>(tool: T, host: Vetter, options: GuardOptions = {}): T {
  return new Guard(host, options).tool(tool);
}

/**
 * The policy as a tool the model can consult before acting: given a tool
 * name and arguments, it answers `{status, answer}` without opening an
 * approval request. Invalid arguments go back to the model as the message
 * saying what is wrong (not the SDK's generic tool-error text).
 */
export function decisionTool(host: Vetter, options: { name?: string; context?: CallContext } = {}) {
  return functionTool({
    name: options.name ?? 'toolvet_policy',
    description: DECISION_TOOL_DESCRIPTION,
    strict: false,
    // Non-strict: the SDK's non-strict schema type wants
    // `additionalProperties: true`; the decision tool validates the input.
    parameters: {
      type: 'object' as const,
      properties: {
        tool: { type: 'string', description: 'The tool you would call.' },
        arguments: { type: 'object', description: 'The arguments you would call it with.', additionalProperties: true },
      },
      required: ['tool', 'arguments'],
      additionalProperties: true as const,
    },
    execute: async (input: unknown): Promise<DecisionResult> => consult(host, parseDecisionQuery(input), options.context),
    errorFunction: (_runContext, error) => (error instanceof Error ? error.message : String(error)),
  });
}
