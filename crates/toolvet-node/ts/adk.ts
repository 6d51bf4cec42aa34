// toolvet for ADK-TS (`@google/adk`): a `BasePolicyEngine` for ADK's
// `SecurityPlugin` (and the plugin with toolvet's resume), a before-tool
// callback for agents without plugins, the tool wrapper ADK needs to
// accept a confirmation reply, and a decision tool.
//
// A deny answers the model with the reason. What a tool returns is vetted
// in ADK's after-tool place (the plugin's `afterToolCallback`, or the
// agent's, `afterToolCallback` here): the model reads it unchanged, masked,
// or in its place why toolvet withheld it. An escalate asks through
// ADK's own confirmation flow (`requestConfirmation`): the run ends with an
// `adk_request_confirmation` call, and the client's reply (`confirmed`,
// optional `payload.message`) resumes it. The reply is recorded in
// toolvet's ledger (the first decision stands) and the call resumes with
// the request's ticket, so it runs once, and only if toolvet holds it.
//
// ADK-TS 2.0.0 accepts a confirmation reply only for a tool that gates the
// call itself (`BaseTool.checkRequireConfirmation`, else it throws
// `IntentMismatchError: confirmation_not_required`): give the agent the
// tools through `gateTools`, so a call toolvet holds for approval counts
// as gated, and a reply about any other call is refused by ADK.
//
// Plugins are loaded only from an `App` (or a `Runner`'s `plugins`): a
// directory whose agent file exports a bare `rootAgent` runs without them.

import { AsyncLocalStorage } from 'node:async_hooks';
import {
  BaseTool,
  FunctionTool,
  PolicyOutcome,
  SecurityPlugin,
  type BasePolicyEngine,
  type Context,
  type PolicyCheckResult,
  type RunAsyncToolRequest,
  type SingleAfterToolCallback,
  type SingleBeforeToolCallback,
  type ToolCallPolicyContext,
} from '@google/adk';
import type { Content, FunctionCall } from '@google/genai';
import { z } from 'zod';
import type { CallContext, ToolInfo, Verdict } from '#native';
import {
  consult,
  DECISION_TOOL_DESCRIPTION,
  denyMessage,
  Gate,
  holdMessage,
  resultOutput,
  withheldMessage,
  type FrameworkAnswer,
  type GatedCall,
  type GateOptions,
} from './gate.js';
import { visible } from './display.js';
import type { Vetter } from './host.js';

/** How the ADK adapter describes calls to toolvet. */
export interface AdkOptions extends GateOptions {
  /**
   * The run of a call. Default: the agent's name, the session id as the
   * run id (approvals are bound to it) and the user id as the principal.
   * The gate adds the user's home (`home`) and working directory (`cwd`)
   * to its attributes unless they name them (`withPlace`).
   */
  context?: (ctx: Context) => CallContext;
  /**
   * Who a confirmation reply is recorded as in toolvet's ledger: the
   * session's user answers it. Default `adk-user:<userId>`.
   */
  reviewer?: (ctx: Context) => string;
  /** What the owner declares about a tool (risk, tags, `requiresApproval`). */
  toolInfo?: (tool: BaseTool) => ToolInfo | undefined;
}

/** The name of ADK's confirmation call. */
export const CONFIRMATION_CALL = 'adk_request_confirmation';

/** The answer a client sends to an `adk_request_confirmation` call. */
export interface ConfirmationAnswer {
  confirmed: boolean;
  /** The person's message (recorded; on a rejection, what the model reads). */
  message?: string;
}

/**
 * The message that answers the confirmation request `request` (an
 * `adk_request_confirmation` call from `getAskUserConfirmationFunctionCalls`):
 * send it as the `newMessage` of the next `runner.runAsync`.
 */
export function confirmationReply(request: FunctionCall, answer: ConfirmationAnswer): Content {
  const payload = answer.message === undefined ? {} : { message: answer.message };
  return {
    role: 'user',
    parts: [
      {
        functionResponse: {
          id: request.id,
          name: CONFIRMATION_CALL,
          response: { confirmed: answer.confirmed, payload },
        },
      },
    ],
  };
}

/** The ADK side of a gate: calls from ADK's tools and contexts, and ADK's answers. */
export class AdkGate {
  readonly gate: Gate;
  readonly #options: AdkOptions;
  readonly #current = new AsyncLocalStorage<Context>();
  /** The answers given in place of running a tool: ADK hands them to the after-tool callbacks too, and they are no tool's result. */
  readonly #answers = new WeakSet<object>();

  constructor(host: Vetter, options: AdkOptions = {}) {
    this.gate = new Gate(host, options);
    this.#options = options;
  }

  /** The call ADK is about to make, as toolvet sees it. */
  call(tool: BaseTool, args: Record<string, unknown>, ctx: Context | undefined): GatedCall {
    const gated: GatedCall = { call: { name: tool.name, arguments: args } };
    const info = this.#options.toolInfo?.(tool);
    if (info !== undefined) {
      gated.tool = info;
    }
    if (ctx === undefined) {
      return gated;
    }
    if (ctx.functionCallId) {
      gated.call.id = ctx.functionCallId;
    }
    gated.context = this.#options.context?.(ctx) ?? {
      agent: ctx.agentName,
      runId: ctx.sessionId,
      principal: ctx.userId,
    };
    return gated;
  }

  /** Toolvet's verdict about the call now (idempotent per session and call id). */
  async verdict(tool: BaseTool, args: Record<string, unknown>, ctx: Context | undefined): Promise<Verdict> {
    return this.gate.verdict(this.call(tool, args, ctx ?? this.#current.getStore()));
  }

  /**
   * Toolvet's verdict where the tool would run now: as `verdict`, and a
   * call a person already approved in toolvet resumes with its ticket
   * (the approval is used).
   */
  async enforce(tool: BaseTool, args: Record<string, unknown>, ctx: Context): Promise<Verdict> {
    return this.gate.settle(this.call(tool, args, ctx), undefined);
  }

  /** Run `f` with `ctx` as the call a policy engine asked without a context is about. */
  within<T>(ctx: Context, f: () => Promise<T>): Promise<T> {
    return this.#current.run(ctx, f);
  }

  /**
   * The whole gate, as a before-tool callback: an answer for ADK to use
   * instead of running the tool, or `undefined` to run it.
   */
  async beforeTool(tool: BaseTool, args: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown> | undefined> {
    if (ctx.toolConfirmation !== undefined) {
      return this.onConfirmation(tool, args, ctx);
    }
    const verdict = await this.enforce(tool, args, ctx);
    switch (verdict.decision) {
      case 'allow':
        return undefined;
      case 'escalate':
        return this.answer(this.#askConfirmation(verdict, ctx));
      default:
        return this.answer({ error: denyMessage(verdict) });
    }
  }

  /**
   * `response`, remembered as an answer given in place of running the tool
   * (a deny, a hold), so `afterTool` does not vet it as the tool's result.
   */
  answer<T extends object>(response: T): T {
    this.#answers.add(response);
    return response;
  }

  /**
   * The whole result gate, as an after-tool callback: what the model reads
   * in place of the tool's `response`, or `undefined` to let it read the
   * response unchanged (a pass, or an answer this gate gave in place of
   * running the tool). A redact is the masked response; a withhold is
   * `{error: "Withheld by toolvet: <reason>"}`, never the response. The
   * labels the response raises reach the session's later calls.
   */
  async afterTool(tool: BaseTool, args: Record<string, unknown>, ctx: Context, response: unknown): Promise<Record<string, unknown> | undefined> {
    if (response == null || (typeof response === 'object' && this.#answers.has(response))) {
      return undefined;
    }
    const verdict = await this.gate.vetResult(this.call(tool, args, ctx), response);
    switch (verdict.action) {
      case 'pass':
        return undefined;
      case 'redact': {
        const masked = resultOutput(verdict, response);
        // ADK reads a string (or array) answer as `{result: …}`, as it does a tool's.
        return (masked !== null && typeof masked === 'object' && !Array.isArray(masked) ? masked : { result: masked }) as Record<string, unknown>;
      }
      default:
        return { error: withheldMessage(verdict) };
    }
  }

  /**
   * The error a tool threw, vetted as its result (`isError`): `undefined`
   * to let ADK give the model the error's message (a pass), else the
   * answer in its place (`{error: <masked message>}`, or the withheld
   * message). For the plugin's `onToolErrorCallback`.
   */
  async onToolError(tool: BaseTool, args: Record<string, unknown>, ctx: Context, error: Error): Promise<Record<string, unknown> | undefined> {
    const verdict = await this.gate.vetResult(this.call(tool, args, ctx), error.message, true);
    switch (verdict.action) {
      case 'pass':
        return undefined;
      case 'redact':
        return this.answer({ error: resultOutput(verdict, error.message) });
      default:
        return this.answer({ error: withheldMessage(verdict) });
    }
  }

  /**
   * The call resumed on a confirmation reply: the reply is recorded in
   * toolvet's ledger and the call resumes with its ticket. Runs the tool
   * (`undefined`) only on toolvet's allow.
   */
  async onConfirmation(tool: BaseTool, args: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown> | undefined> {
    const confirmation = ctx.toolConfirmation;
    const answer: FrameworkAnswer = {
      approved: confirmation?.confirmed === true,
      reviewer: this.#options.reviewer?.(ctx) ?? `adk-user:${ctx.userId}`,
    };
    const message = (confirmation?.payload as { message?: unknown } | undefined)?.message;
    if (typeof message === 'string' && message.trim() !== '') {
      answer.message = message;
    }
    const call = this.call(tool, args, ctx);
    // A rejection is final: the tool does not run, whatever toolvet holds.
    const verdict = answer.approved ? await this.gate.settle(call, answer) : await this.gate.reject(call, answer);
    switch (verdict.decision) {
      case 'allow':
        return undefined;
      case 'escalate':
        return this.answer({ error: holdMessage(verdict) });
      default:
        return this.answer({ error: denyMessage(verdict) });
    }
  }

  #askConfirmation(verdict: Verdict, ctx: Context): Record<string, unknown> {
    // The hint is what the person reads: `visible`, so a reason quoting the
    // model's text cannot forge lines in it.
    const hint = visible(holdMessage(verdict));
    ctx.requestConfirmation({ hint, payload: { toolvet: { approvalId: verdict.approval?.id ?? null } } });
    // End the turn now, as ADK's own confirmation gate does.
    ctx.actions.skipSummarization = true;
    return { error: hint };
  }
}

/**
 * toolvet as ADK's `BasePolicyEngine`: ALLOW, DENY or CONFIRM with
 * toolvet's reason, and never anything else (a failure is DENY), since the
 * `SecurityPlugin` of ADK-TS 2.0.0 lets a call run on an outcome it does
 * not know. Used by the stock `SecurityPlugin` it sees no call id or
 * session, and ADK alone decides the confirmation reply; use
 * `ToolvetSecurityPlugin` for approvals recorded in toolvet.
 */
export class ToolvetPolicyEngine implements BasePolicyEngine {
  readonly adk: AdkGate;

  constructor(host: Vetter | AdkGate, options: AdkOptions = {}) {
    this.adk = host instanceof AdkGate ? host : new AdkGate(host, options);
  }

  async evaluate({ tool, toolArgs }: ToolCallPolicyContext): Promise<PolicyCheckResult> {
    const verdict = await this.adk.verdict(tool, toolArgs, undefined);
    switch (verdict.decision) {
      case 'allow':
        return { outcome: PolicyOutcome.ALLOW, reason: verdict.reason ?? 'allowed by toolvet' };
      case 'escalate':
        // ADK's SecurityPlugin shows this reason to the person as the hint.
        return { outcome: PolicyOutcome.CONFIRM, reason: visible(verdict.reason ?? 'a person must approve this call') };
      default:
        return { outcome: PolicyOutcome.DENY, reason: verdict.reason ?? 'denied by toolvet' };
    }
  }
}

/**
 * ADK's `SecurityPlugin` with toolvet's policy engine, and toolvet's
 * resume: the engine sees each call's id and session (approvals bind to
 * them), a confirmation reply is recorded in toolvet's ledger and resumes
 * with the ticket (a rejection gives the model the reviewer's message),
 * and a call the stock plugin would let through runs only on toolvet's
 * allow. Attach it to an `App` (or a `Runner`'s `plugins`).
 */
export class ToolvetSecurityPlugin extends SecurityPlugin {
  readonly adk: AdkGate;

  constructor(host: Vetter, options: AdkOptions = {}) {
    const adk = new AdkGate(host, options);
    super({ policyEngine: new ToolvetPolicyEngine(adk) });
    this.adk = adk;
  }

  override async beforeToolCallback(params: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
  }): Promise<Record<string, unknown> | undefined> {
    const { tool, toolArgs, toolContext } = params;
    if (toolContext.toolConfirmation !== undefined) {
      return this.adk.onConfirmation(tool, toolArgs, toolContext);
    }
    const response = await this.adk.within(toolContext, () => super.beforeToolCallback(params));
    if (response !== undefined) {
      return this.adk.answer(response);
    }
    // The stock plugin lets the call run: on ALLOW, but also on a state it
    // stored for this call earlier or an outcome it does not know.
    const verdict = await this.adk.enforce(tool, toolArgs, toolContext);
    if (verdict.decision === 'allow') {
      return undefined;
    }
    return this.adk.answer({ error: verdict.decision === 'deny' ? denyMessage(verdict) : holdMessage(verdict) });
  }

  /** What the tool returned, vetted (`AdkGate.afterTool`). */
  override async afterToolCallback(params: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
    result: Record<string, unknown>;
  }): Promise<Record<string, unknown> | undefined> {
    return this.adk.afterTool(params.tool, params.toolArgs, params.toolContext, params.result);
  }

  /** The error a tool threw, vetted as its result (`AdkGate.onToolError`). */
  override async onToolErrorCallback(params: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
    error: Error;
  }): Promise<Record<string, unknown> | undefined> {
    return this.adk.onToolError(params.tool, params.toolArgs, params.toolContext, params.error);
  }
}

/**
 * toolvet as an agent's `beforeToolCallback`, for agents run without the
 * plugin: a deny answers with the reason, an escalate asks through
 * `requestConfirmation` and resumes on the reply.
 */
export function beforeToolCallback(host: Vetter | AdkGate, options: AdkOptions = {}): SingleBeforeToolCallback {
  const adk = host instanceof AdkGate ? host : new AdkGate(host, options);
  return ({ tool, args, context }) => adk.beforeTool(tool, args, context);
}

/**
 * toolvet as an agent's `afterToolCallback`, for agents run without the
 * plugin: what each tool returned is vetted (`AdkGate.afterTool`). Give it
 * the same `AdkGate` as `beforeToolCallback`, so the answers that gate
 * gives in place of a tool are not vetted as results.
 */
export function afterToolCallback(host: Vetter | AdkGate, options: AdkOptions = {}): SingleAfterToolCallback {
  const adk = host instanceof AdkGate ? host : new AdkGate(host, options);
  return ({ tool, args, context, response }) => adk.afterTool(tool, args, context, response);
}

/**
 * The tool `inner` for an agent gated by toolvet: the same declaration and
 * execution, and a call toolvet holds for approval counts as gated
 * (`checkRequireConfirmation`), which ADK requires before it resumes a call
 * on a confirmation reply.
 */
export class GatedTool extends BaseTool {
  // Private: the gated tool exposes neither the tool it wraps nor the gate.
  readonly #inner: BaseTool;
  readonly #adk: AdkGate;

  constructor(inner: BaseTool, adk: AdkGate) {
    super({ name: inner.name, description: inner.description, isLongRunning: inner.isLongRunning });
    this.#inner = inner;
    this.#adk = adk;
  }

  override _getDeclaration() {
    return this.#inner._getDeclaration();
  }

  override runAsync(request: RunAsyncToolRequest): Promise<unknown> {
    return this.#inner.runAsync(request);
  }

  override async checkRequireConfirmation(args: Record<string, unknown>, ctx?: Context): Promise<boolean> {
    if (await this.#inner.checkRequireConfirmation(args, ctx)) {
      return true;
    }
    // Held, or answered by a person in toolvet already (a rejection carries
    // its request): ADK then takes the reply, and the gate gives the model
    // toolvet's answer.
    const verdict = await this.#adk.verdict(this, args, ctx);
    return verdict.decision === 'escalate' || (verdict.decision === 'deny' && verdict.approval != null);
  }
}

/**
 * `tools` for an agent gated by `adk` (the plugin's or callback's gate):
 * function tools wrapped in `GatedTool`; tools the model runs itself
 * (no function declaration) unchanged.
 */
export function gateTools(tools: readonly BaseTool[], adk: AdkGate): BaseTool[] {
  return tools.map((tool) => (tool._getDeclaration() === undefined ? tool : new GatedTool(tool, adk)));
}

/**
 * The policy as a tool the model can consult before acting: given a tool
 * name and arguments, it answers `{status, answer}` without opening an
 * approval request. Invalid arguments go back to the model as ADK's tool
 * error.
 */
export function decisionTool(host: Vetter, options: { name?: string } = {}) {
  return new FunctionTool({
    name: options.name ?? 'toolvet_policy',
    description: DECISION_TOOL_DESCRIPTION,
    parameters: z.object({
      tool: z.string().min(1).describe('The tool you would call.'),
      arguments: z.record(z.string(), z.unknown()).describe('The arguments you would call it with.'),
    }),
    execute: (query, ctx) =>
      consult(host, query, ctx === undefined ? undefined : { agent: ctx.agentName, runId: ctx.sessionId, principal: ctx.userId }),
  });
}
