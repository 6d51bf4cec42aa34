// `Host`: a loaded toolvet policy in this process. Checks run off the
// JavaScript thread (napi-rs's Tokio runtime); `checkSync` and
// `checkResultSync` are the blocking exceptions. A check never rejects:
// whatever goes wrong becomes a deny verdict (a withheld result), so no
// caller can turn a failure into an allow.

import * as native from '#native';
import type {
  CallContext,
  CheckSummary,
  ToolCall,
  ToolInfo,
  ToolResult,
  Verdict,
} from '#native';
import { messageOf, unwrap } from './errors.js';

/**
 * One approval request, as the ledger holds it: the native request with
 * its `arguments` parsed from their JSON text. Attacker-controlled: escape
 * the arguments wherever they are shown.
 */
export type ApprovalRequest = Omit<native.ApprovalRequest, 'argumentsJson'> & {
  /** The call's arguments (a JSON object; a `__proto__` key is an own key). */
  arguments: Record<string, unknown>;
};

function parsed(request: native.ApprovalRequest): ApprovalRequest {
  const { argumentsJson, ...rest } = request;
  return { ...rest, arguments: JSON.parse(argumentsJson) as Record<string, unknown> };
}

/**
 * The verdict about what a tool returned: `action` `pass` (the model reads
 * `content`, the result as returned), `redact` (the model reads `content`,
 * with parts masked as `[redacted: KIND]`) or `withhold` (no `content`: the
 * model reads `reason`). `content` is a string for a text result, else the
 * JSON value. `labels` are those the result raised; the host keeps them for
 * the run's later calls when the call named a `runId`.
 */
export type ResultVerdict = Omit<native.NativeResultVerdict, 'contentText' | 'contentJson'> & {
  /** What the model reads (pass, redact): a string for text, else the JSON value. */
  content?: unknown;
};

function resultVerdict(verdict: native.NativeResultVerdict): ResultVerdict {
  const { contentText, contentJson, ...rest } = verdict;
  if (contentText != null) {
    return { ...rest, content: contentText };
  }
  if (contentJson != null) {
    return { ...rest, content: JSON.parse(contentJson) as unknown };
  }
  return rest;
}

/** A withheld result the package decides itself, with `rule` and `reason`. */
export function withheldVerdict(rule: string, reason: string): ResultVerdict {
  return { action: 'withhold', rule, reason, labels: [], checks: [], durationUs: 0 };
}

/** A withheld result toolvet failed to vet (a host that threw or rejected). */
export function failedResultVerdict(error: unknown): ResultVerdict {
  return withheldVerdict(RULES.hostError, `toolvet failed while vetting this result, so it is withheld: ${messageOf(error)}`);
}

/** Rules of the deny verdicts made outside the checks. */
export const RULES = {
  /** The call could not be vetted: its shape is invalid (the reason, the CLI's message, says how). */
  invalidCall: 'toolvet.invalid-call',
  /** toolvet failed while vetting the call (the reason says how). */
  hostError: 'toolvet.host-error',
} as const;

/** Statuses `Host.approvals` can list. */
export type StatusFilter = 'pending' | 'approved' | 'rejected' | 'consumed' | 'expired' | 'all';

/** A page of approval requests: oldest first, `limit` (1..=500, default 100) after `after`. */
export interface ApprovalQuery {
  status?: StatusFilter;
  limit?: number;
  after?: string;
}

/** A person's decision: their message (the model reads it on a rejection) and, for approvals, the scope. */
export interface ReviewOptions {
  message?: string;
  /** `once` (default): this call, once. `run`: the same tool and arguments for the rest of the run. */
  scope?: 'once' | 'run';
  /**
   * The `reviewSha256` of the request as the reviewer read it. A review
   * screen passes it: the decision is then recorded only while the request
   * is still what the person saw (else an `ApprovalError` of kind `changed`).
   */
  shown?: string;
}

/**
 * What the adapters need from a host. `Host` is one; anything else with
 * these methods (a proxy to `toolvet serve`, a test double) works too, and
 * the adapters treat any method that throws or rejects as a deny.
 */
export interface Vetter {
  check(call: ToolCall, tool?: ToolInfo, context?: CallContext): Promise<Verdict>;
  resume(ticket: string, call: ToolCall, tool?: ToolInfo, context?: CallContext): Promise<Verdict>;
  preview(call: ToolCall, tool?: ToolInfo, context?: CallContext): Promise<Verdict>;
  approve(id: string, reviewer: string, options?: ReviewOptions): Promise<ApprovalRequest>;
  reject(id: string, reviewer: string, options?: Omit<ReviewOptions, 'scope'>): Promise<ApprovalRequest>;
  /**
   * Vet what a tool returned. Optional: a vetter without it vets no
   * results (as one whose `vetsResults` is false), and the adapters pass
   * results unchanged.
   */
  checkResult?(call: ToolCall, result: ToolResult, context?: CallContext, tool?: ToolInfo): Promise<ResultVerdict>;
  /** Whether `checkResult` can do anything but pass; false (or absent) lets the adapters skip it. */
  readonly vetsResults?: boolean;
}

/**
 * A deny verdict for a call toolvet failed to vet (a host that threw or
 * rejected, an argument the addon could not read).
 */
export function failedVerdict(error: unknown): Verdict {
  return denyVerdict(RULES.hostError, `toolvet failed while vetting this call, so it is denied: ${messageOf(error)}`);
}

/** A deny verdict the package decides itself, with `rule` and `reason`. */
export function denyVerdict(rule: string, reason: string): Verdict {
  return { decision: 'deny', rule, reason, checks: [], durationUs: 0 };
}

/** A loaded policy: vets calls, and holds the approvals of its `[approvals]` table. */
export class Host implements Vetter {
  readonly #addon: native.NativeHost;

  private constructor(loaded: native.NativeHost) {
    this.#addon = loaded;
  }

  /**
   * Load every check of the policy file at `path` (off the JavaScript thread).
   * @throws {ConfigError} the file cannot be read or is not a valid policy.
   * @throws {LoadError} checks (or the ledger, key or decision log) failed to load.
   */
  static async fromFile(path: string): Promise<Host> {
    return new Host(await unwrap(native.loadFile(path)));
  }

  /**
   * Load policy `text`; its relative paths resolve against `baseDir`, and
   * `source` (default `<inline>`) names it in error messages.
   * @throws {ConfigError} | {LoadError} as `fromFile`.
   */
  static async fromToml(text: string, baseDir: string, source?: string): Promise<Host> {
    return new Host(await unwrap(native.loadToml(text, baseDir, source)));
  }

  /**
   * Vet one call before it runs, off the JavaScript thread. Never rejects:
   * a call that cannot be vetted, or any failure, is a deny verdict.
   */
  async check(call: ToolCall, tool?: ToolInfo, context?: CallContext): Promise<Verdict> {
    try {
      return await this.#addon.check(call, tool, context);
    } catch (error) {
      return failedVerdict(error);
    }
  }

  /**
   * Vet a resumed call: `ticket` is `verdict.approval.ticket` from the
   * call's escalate verdict. Allowed once a person approved it (the ticket
   * is then used up); denied with the reviewer's message once they
   * rejected it; still an escalate while it waits. Never rejects.
   */
  async resume(ticket: string, call: ToolCall, tool?: ToolInfo, context?: CallContext): Promise<Verdict> {
    try {
      return await this.#addon.check(call, tool, context, ticket);
    } catch (error) {
      return failedVerdict(error);
    }
  }

  /**
   * `check` on the calling thread. **Blocks the event loop** until the
   * verdict is ready (microseconds for the shipped checks, up to a check's
   * `timeout_ms`): only for hooks that must answer synchronously. Never
   * throws. With `ticket`, a resume.
   */
  checkSync(call: ToolCall, tool?: ToolInfo, context?: CallContext, ticket?: string): Verdict {
    try {
      return this.#addon.checkSync(call, tool, context, ticket);
    } catch (error) {
      return failedVerdict(error);
    }
  }

  /**
   * Vet what a tool returned (`result.content`: a string is text, any
   * other value JSON; `result.isError`: the tool failed), off the
   * JavaScript thread, with the labels its run's earlier results raised.
   * The labels this result raises are kept in this host for the run's
   * later calls (and results) when `context.runId` is given, keyed by the
   * run id with its principal and agent; a `context` carrying `labels` of
   * its own is refused (the result is withheld, rule
   * `toolvet.invalid-call`), so no caller can add or drop one. Never
   * rejects: a result check that fails answers its `on_error` (by default
   * withhold), and any failure withholds the result.
   */
  async checkResult(call: ToolCall, result: ToolResult, context?: CallContext, tool?: ToolInfo): Promise<ResultVerdict> {
    try {
      return resultVerdict(await this.#addon.checkResult(call, result, context, tool));
    } catch (error) {
      return failedResultVerdict(error);
    }
  }

  /**
   * `checkResult` on the calling thread. **Blocks the event loop** until
   * the verdict is ready: only for hooks that must answer synchronously.
   * Never throws.
   */
  checkResultSync(call: ToolCall, result: ToolResult, context?: CallContext, tool?: ToolInfo): ResultVerdict {
    try {
      return resultVerdict(this.#addon.checkResultSync(call, result, context, tool));
    } catch (error) {
      return failedResultVerdict(error);
    }
  }

  /**
   * Whether any check of the policy vets results (of contract 0.2 with a
   * `result-check`, or a check that failed to load): when false,
   * `checkResult` always passes, and the adapters skip it.
   */
  get vetsResults(): boolean {
    return this.#addon.vetsResults;
  }

  /**
   * What the checks would decide about a call that is not being made: no
   * approval request is opened, no ticket read, nothing recorded. For
   * decision tools. Never rejects.
   */
  async preview(call: ToolCall, tool?: ToolInfo, context?: CallContext): Promise<Verdict> {
    try {
      return await this.#addon.preview(call, tool, context);
    } catch (error) {
      return failedVerdict(error);
    }
  }

  /**
   * A page of approval requests (default: pending ones), oldest first.
   * @throws {ApprovalError} `invalid-query`, `unavailable`, `unsupported`.
   */
  async approvals(query: ApprovalQuery = {}): Promise<ApprovalRequest[]> {
    return (await unwrap(this.#addon.approvals(query.status, query.limit, query.after))).map(parsed);
  }

  /** The pending approval requests (a page; see `approvals`). */
  async pending(query: Omit<ApprovalQuery, 'status'> = {}): Promise<ApprovalRequest[]> {
    return this.approvals({ ...query, status: 'pending' });
  }

  /**
   * The approval request `id`, with its status as of now.
   * @throws {ApprovalError} `not-found`, `unavailable`, `unsupported`.
   */
  async approval(id: string): Promise<ApprovalRequest> {
    return parsed(await unwrap(this.#addon.approval(id)));
  }

  /**
   * Approve request `id` as `reviewer`. The first decision stands.
   * @throws {ApprovalError} `invalid-review`, `not-found`, `already-decided`, `expired`, `changed`, `unavailable`, `unsupported`.
   */
  async approve(id: string, reviewer: string, options: ReviewOptions = {}): Promise<ApprovalRequest> {
    return parsed(
      await unwrap(this.#addon.decide(id, 'approve', reviewer, options.message, options.scope, options.shown)),
    );
  }

  /**
   * Reject request `id` as `reviewer`; the resumed call is denied and the
   * model reads "<reviewer> rejected this call: <message>".
   * @throws {ApprovalError} as `approve`.
   */
  async reject(id: string, reviewer: string, options: Omit<ReviewOptions, 'scope'> = {}): Promise<ApprovalRequest> {
    return parsed(await unwrap(this.#addon.decide(id, 'reject', reviewer, options.message, undefined, options.shown)));
  }

  /** Hex sha256 of the policy in force. */
  get policySha256(): string {
    return this.#addon.policySha256;
  }

  /** The policy file in force (or the `source` of an inline policy). */
  get policySource(): string {
    return this.#addon.policySource;
  }

  /** How many policies this host has loaded. */
  get generation(): number {
    return this.#addon.generation;
  }

  /** Whether the policy has an `[approvals]` table. */
  get hasApprovals(): boolean {
    return this.#addon.hasApprovals;
  }

  /** One summary per configured check, in policy order. */
  checks(): CheckSummary[] {
    return this.#addon.checks();
  }
}
