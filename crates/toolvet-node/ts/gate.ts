// What every framework adapter does with a host, in one place: ask about
// a call (idempotently: frameworks ask again on resume), settle a call a
// person answered through the framework, and answer a decision tool.
//
// Approvals are toolvet's. An escalate opens a request in toolvet's
// ledger; a person's answer given through the framework (a confirmation
// reply, `state.approve`, an approval response) is recorded there under
// the adapter's reviewer, unless someone decided first (the first
// decision stands); the call then resumes with the request's ticket, so
// only the ledger lets it run, once.

import type { ApprovalRequest, CallContext, ToolCall, ToolInfo, Verdict } from '#native';
import { ApprovalError } from './errors.js';
import { denyVerdict, failedVerdict, type Vetter } from './host.js';

/** A call as an adapter sees it: the call, what its tool declares, and its run. */
export interface GatedCall {
  call: ToolCall;
  tool?: ToolInfo;
  context?: CallContext;
}

/** A person's answer about a held call, as the framework delivered it. */
export interface FrameworkAnswer {
  approved: boolean;
  /** Who answered, as recorded in toolvet's ledger. */
  reviewer: string;
  /** Their message; on a rejection, what the model reads. */
  message?: string;
}

/** Options every adapter takes. */
export interface GateOptions {
  /**
   * How many final verdicts to remember, per (run, call id, tool,
   * arguments), so that a framework asking again about the same call gets
   * the same answer (default 10 000; the oldest is forgotten first).
   */
  cacheSize?: number;
}

/** Rules of the verdicts adapters decide themselves. */
export const GATE_RULES = {
  /** The framework reports an approval toolvet has no request for. */
  notHeld: 'toolvet.approval-not-recorded',
} as const;

const DEFAULT_CACHE_SIZE = 10_000;

/**
 * A call's place in the cache: the run, the call id, the tool and the
 * arguments (keys sorted), so a changed call is asked about anew.
 */
function cacheKey({ call, context }: GatedCall): string | undefined {
  if (!call.id) {
    // Without an id, two calls cannot be told apart: never cached.
    return undefined;
  }
  return JSON.stringify([context?.runId ?? null, call.id, call.name, canonical(call.arguments ?? {})]);
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(canonical);
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** The decisions of one adapter: a host, and the final verdicts it gave. */
export class Gate {
  readonly host: Vetter;
  readonly #final = new Map<string, Verdict>();
  readonly #cacheSize: number;

  constructor(host: Vetter, options: GateOptions = {}) {
    this.host = host;
    this.#cacheSize = Math.max(0, options.cacheSize ?? DEFAULT_CACHE_SIZE);
  }

  /**
   * The verdict about `gated` now, without a person's answer: allow, deny,
   * or escalate while it is held. A call a person already approved in
   * toolvet resumes with its ticket and is allowed (once); asked again,
   * the same call gets the same final verdict. Never rejects.
   */
  async verdict(gated: GatedCall): Promise<Verdict> {
    return this.settle(gated, undefined);
  }

  /**
   * The verdict about `gated` once the framework delivered `answer` (or
   * none): the answer is recorded in toolvet's ledger (the first decision
   * stands) and the call resumes with its ticket, so toolvet's ledger
   * decides. A deny stays a deny whatever the answer. Never rejects.
   */
  async settle(gated: GatedCall, answer: FrameworkAnswer | undefined): Promise<Verdict> {
    const key = cacheKey(gated);
    const known = key === undefined ? undefined : this.#final.get(key);
    if (known !== undefined) {
      return known;
    }
    const verdict = await this.#decide(gated, answer);
    if (key !== undefined && verdict.decision !== 'escalate') {
      this.#remember(key, verdict);
    }
    return verdict;
  }

  async #decide(gated: GatedCall, answer: FrameworkAnswer | undefined): Promise<Verdict> {
    const { call, tool, context } = gated;
    const verdict = await guarded(() => this.host.check(call, tool, context));
    if (verdict.decision !== 'escalate') {
      return verdict;
    }
    const request = verdict.approval;
    if (request === undefined || request === null) {
      // No [approvals] table: nothing in toolvet can hold or record the
      // answer, so the framework's answer is the person's.
      if (answer === undefined) {
        return verdict;
      }
      return answer.approved
        ? { ...verdict, decision: 'allow', reason: `approved by ${answer.reviewer}` }
        : denyVerdict('approval.rejected', rejection(answer));
    }
    if (request.status === 'pending' && answer !== undefined) {
      const recorded = await this.#record(request.id, answer);
      if (recorded !== undefined) {
        return recorded;
      }
    } else if (request.status === 'pending') {
      return verdict;
    }
    if (!request.ticket) {
      return verdict;
    }
    return guarded(() => this.host.resume(request.ticket as string, call, tool, context));
  }

  /** Record `answer` about request `id`; a deny verdict if it cannot be. */
  async #record(id: string, answer: FrameworkAnswer): Promise<Verdict | undefined> {
    const options = answer.message === undefined ? {} : { message: answer.message };
    try {
      await (answer.approved
        ? this.host.approve(id, answer.reviewer, options)
        : this.host.reject(id, answer.reviewer, options));
      return undefined;
    } catch (error) {
      if (error instanceof ApprovalError && error.kind === 'already-decided') {
        // Decided in toolvet first: that decision stands; the resume reads it.
        return undefined;
      }
      return failedVerdict(error);
    }
  }

  #remember(key: string, verdict: Verdict): void {
    if (this.#cacheSize === 0) {
      return;
    }
    this.#final.delete(key);
    this.#final.set(key, verdict);
    while (this.#final.size > this.#cacheSize) {
      const oldest = this.#final.keys().next().value;
      if (oldest === undefined) {
        break;
      }
      this.#final.delete(oldest);
    }
  }
}

function rejection(answer: FrameworkAnswer): string {
  return answer.message ? `${answer.reviewer} rejected this call: ${answer.message}` : `${answer.reviewer} rejected this call`;
}

/** `f()`, with every rejection (and an answer that is no verdict) a deny. */
export async function guarded(f: () => Promise<Verdict>): Promise<Verdict> {
  try {
    return sane(await f());
  } catch (error) {
    return failedVerdict(error);
  }
}

/** `verdict` if its decision is one of the three; else a deny (fail closed). */
export function sane(verdict: Verdict): Verdict {
  const decision = (verdict as { decision?: unknown } | null | undefined)?.decision;
  if (decision === 'allow' || decision === 'deny' || decision === 'escalate') {
    return verdict;
  }
  return failedVerdict(new Error(`the host answered an unknown decision ${JSON.stringify(decision)}`));
}

/** What the model reads about a deny. */
export function denyMessage(verdict: Verdict): string {
  return `Blocked by policy: ${verdict.reason ?? 'the call is not allowed'}`;
}

/** What the model (or a person) reads about an escalate. */
export function holdMessage(verdict: Verdict): string {
  const id = verdict.approval?.id;
  const why = verdict.reason ?? 'a person must approve this call first';
  return id ? `Held for approval (request ${id}): ${why}` : `Held for approval: ${why}`;
}

/** The answer of a decision tool. */
export interface DecisionResult {
  status: 'allow' | 'deny' | 'escalate';
  answer: string;
}

/** The arguments of a decision tool: the action the model considers. */
export interface DecisionQuery {
  tool: string;
  arguments: Record<string, unknown>;
}

/** The text of the decision tools' description (shared by the adapters). */
export const DECISION_TOOL_DESCRIPTION =
  'Ask the tool-call policy whether an action would be allowed before you take it. ' +
  'Give the tool you would call and its arguments; the answer says allow, deny ' +
  '(with the reason) or escalate (a person must approve it first).';

/**
 * The policy's answer about a proposed action, for a decision tool:
 * `host.preview`, so asking opens no approval request and records nothing.
 * Never rejects.
 */
export async function consult(host: Vetter, query: DecisionQuery, context?: CallContext): Promise<DecisionResult> {
  const verdict = await guarded(() => host.preview({ name: query.tool, arguments: query.arguments }, undefined, context));
  switch (verdict.decision) {
    case 'allow':
      return { status: 'allow', answer: verdict.reason ?? `${query.tool} with these arguments is allowed` };
    case 'escalate':
      return {
        status: 'escalate',
        answer: `a person must approve this first: ${verdict.reason ?? 'the policy holds it for approval'}`,
      };
    default:
      return { status: 'deny', answer: verdict.reason ?? 'the policy does not allow this' };
  }
}

/** A request's call, as the gate would ask about it. */
export function heldCall(request: ApprovalRequest): GatedCall {
  const call: ToolCall = {
    id: request.call.callId,
    name: request.call.tool,
    arguments: request.arguments,
  };
  const context: CallContext = {};
  if (request.call.runId) {
    context.runId = request.call.runId;
  }
  return { call, context };
}
