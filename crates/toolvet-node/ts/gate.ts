// What every framework adapter does with a host, in one place: ask about
// a call (idempotently: frameworks ask again on resume), settle a call a
// person answered through the framework, and answer a decision tool.
//
// Approvals are toolvet's. An escalate opens a request in toolvet's
// ledger; a person's answer given through the framework (a confirmation
// reply, `state.approve`, an approval response) is recorded there under
// the adapter's reviewer, unless someone decided first (the first
// decision stands); the call then resumes with the request's ticket, so
// only the ledger lets it run, once. An approval is taken only for a
// request that existed before the ask that brought it (`opened` is false):
// an answer about a call toolvet never held runs nothing.

import { createHash } from 'node:crypto';
import { HOME_ATTRIBUTE, userHome, type CallContext, type Outcome, type PriorCall, type ToolCall, type ToolInfo, type Verdict } from '#native';
import { ApprovalError, messageOf } from './errors.js';
import { denyVerdict, failedResultVerdict, failedVerdict, RULES, type ResultVerdict, type Vetter } from './host.js';

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
   * @deprecated Ignored: the gate remembers no verdicts. Every look and
   * every run of a call is asked of the host with the run's history (a
   * provider may reuse a call id for an identical call; reviews s15 N2,
   * s16 P7).
   */
  cacheSize?: number;
  /**
   * How many calls one run's history may hold (default 5000, the host's
   * default `[host] max_history`). Nothing is ever dropped from a run's
   * history: once it holds this many calls, every further call of the run
   * is denied (`toolvet.history-overflow`), as the hooks do.
   */
  maxHistory?: number;
  /**
   * How many runs' histories to keep (default 1024). When the gate is full,
   * a new run takes the place of the least recently used run only if that
   * one has been idle for `RUN_IDLE_MS`; otherwise the new run's call is
   * denied (`toolvet.too-many-runs`), as `toolvet serve` does: a forgotten
   * busy run would restart its run totals (review s23 F8).
   */
  maxRuns?: number;
}

/**
 * `context` as the checks get it from a gate: a copy with the `home`
 * attribute (`HOME_ATTRIBUTE`) set to `home`, the home directory of the
 * user this process runs as (`userHome()`, the core's rule, the one the
 * hooks and `toolvet mcp` use), unless its attributes name one already
 * (that one is kept). So the shell and path checks know what `~` and
 * `$HOME` stand for in a framework tool's arguments: the tools run in
 * this process, as its user. Nothing in a call's arguments ever becomes an
 * attribute. With no home (`null`), the attributes are as given.
 */
export function withHome(context: CallContext | undefined, home: string | null | undefined = userHome()): CallContext {
  const attributes = { ...context?.attributes };
  if (home != null && !Object.hasOwn(attributes, HOME_ATTRIBUTE)) {
    attributes[HOME_ATTRIBUTE] = home;
  }
  return { ...context, attributes };
}

/** The context attribute naming the directory a call's relative paths are relative to. */
export const CWD_ATTRIBUTE = 'cwd';

/** This process's working directory, or null when it has none (deleted, unreadable). */
function processCwd(): string | null {
  try {
    return process.cwd();
  } catch {
    return null;
  }
}

/**
 * `context` as a gate (or a decision tool) asks the checks about it: with
 * `home` (`withHome`) and with the `cwd` attribute (`CWD_ATTRIBUTE`) set to
 * this process's working directory *now*, unless its attributes name one
 * already (that one is kept). The tools run in this process, so a relative
 * path in a tool's arguments is relative to it; without it the shell check
 * cannot place `> .mcp.json` or `cd .. && … >> .bashrc` onto the guard
 * rails they reach (review s23 F1). Read at each call: a process may chdir.
 */
export function withPlace(context: CallContext | undefined, home: string | null | undefined = userHome()): CallContext {
  const placed = withHome(context, home);
  const attributes = placed.attributes ?? {};
  if (!Object.hasOwn(attributes, CWD_ATTRIBUTE)) {
    const cwd = processCwd();
    if (cwd !== null) {
      attributes[CWD_ATTRIBUTE] = cwd;
    }
  }
  return { ...placed, attributes };
}

/** Rules of the verdicts adapters decide themselves. */
export const GATE_RULES = {
  /**
   * The framework reports a person's answer about a call toolvet was not
   * holding (no approval request existed for it before): the answer is
   * not recorded, and the call does not run.
   */
  notHeld: 'toolvet.approval-not-recorded',
  /** The call escalates, but the policy has no `[approvals]` table to hold it. */
  disabled: 'approval.disabled',
  /** The run's history is full: the call is refused rather than vetted with earlier calls left out. */
  historyOverflow: 'toolvet.history-overflow',
  /**
   * A new run refused because the gate keeps `maxRuns` runs and none has
   * been idle for `RUN_IDLE_MS` (the core's `toolvet.too-many-runs`).
   */
  tooManyRuns: 'toolvet.too-many-runs',
} as const;

/**
 * How long a run must go unused before a new run may take its place when
 * the gate is full, in milliseconds (the core's `run_history::RUN_IDLE`,
 * 10 minutes).
 */
export const RUN_IDLE_MS = 600_000;

/** Arguments at most this many bytes of JSON are kept whole in a run's history. */
export const HISTORY_KEEP_WHOLE_BYTES = 4096;
const ELIDED_KEY = 'toolvet.elided';
const SMALL_VALUE_BYTES = 256;
const DEFAULT_MAX_HISTORY = 5000;
const DEFAULT_MAX_RUNS = 1024;

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * `args` as a run's history keeps them: whole when their JSON is at most
 * `HISTORY_KEEP_WHOLE_BYTES`; else every value over 256 bytes becomes the
 * text `toolvet.elided: N bytes, sha256 …` (largest first, only as far as
 * needed) and the object gets `toolvet.elided: {bytes, sha256}`, the core's
 * markers, so a payment's amount beside a large memo stays readable; an
 * object still too large keeps only the note.
 */
export function historyArguments(args: Record<string, unknown>): Record<string, unknown> {
  const text = JSON.stringify(args);
  if (bytes(text) <= HISTORY_KEEP_WHOLE_BYTES) {
    return JSON.parse(text) as Record<string, unknown>;
  }
  const note = { bytes: bytes(text), sha256: sha256(text) };
  const kept = JSON.parse(text) as Record<string, unknown>;
  delete kept[ELIDED_KEY];
  const sizes = new Map(Object.keys(kept).map((k) => [k, bytes(JSON.stringify(kept[k]))]));
  for (const key of [...sizes.keys()].sort((a, b) => (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0))) {
    if (bytes(JSON.stringify({ ...kept, [ELIDED_KEY]: note })) <= HISTORY_KEEP_WHOLE_BYTES) {
      break;
    }
    const size = sizes.get(key) ?? 0;
    if (size > SMALL_VALUE_BYTES) {
      const value = JSON.stringify(kept[key]);
      kept[key] = `toolvet.elided: ${bytes(value)} bytes, sha256 ${sha256(value).slice(0, 32)}`;
    }
  }
  const shrunk = { ...kept, [ELIDED_KEY]: note };
  return bytes(JSON.stringify(shrunk)) > HISTORY_KEEP_WHOLE_BYTES ? { [ELIDED_KEY]: note } : shrunk;
}

/**
 * What happened to a call, for its run's history, from the verdict the gate
 * gave (never from what the tool returned): `approved` is an allow on a
 * person's approval, `rejected` a person's no.
 */
function outcomeOf(verdict: Verdict): Outcome {
  const rule = verdict.rule ?? '';
  switch (verdict.decision) {
    case 'allow':
      return verdict.approval != null || rule.startsWith('approval.') ? 'approved' : 'allowed';
    case 'escalate':
      return 'escalated';
    default:
      return rule === 'approval.rejected' ? 'rejected' : 'denied';
  }
}

/**
 * Which entry of its run's history a verdict is about: the call id's with
 * the call itself (a reused id with other arguments is another call: some
 * providers number calls per turn, review s14 N1), or (no id) a new entry
 * per call.
 */
function entryKey({ call, context }: GatedCall): string {
  if (call.id) {
    return JSON.stringify(['id', context?.agent ?? null, context?.principal ?? null, call.id, call.name, canonical(call.arguments ?? {})]);
  }
  return JSON.stringify(['call', context?.agent ?? null, context?.principal ?? null, call.name, canonical(call.arguments ?? {})]);
}

/**
 * `gated` with its arguments as toolvet sees them: a JSON copy (own
 * enumerable keys, `toJSON` applied once), so the history and the host
 * read the same value. Throws for arguments JSON cannot hold (a BigInt, a
 * cycle).
 */
function asJson(gated: GatedCall): GatedCall {
  const text = JSON.stringify(gated.call.arguments ?? {});
  const call: ToolCall = { ...gated.call, arguments: text === undefined ? {} : (JSON.parse(text) as Record<string, unknown>) };
  return { ...gated, call };
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(canonical);
  }
  if (value !== null && typeof value === 'object') {
    // Pairs, not an object: a `__proto__` key stays a key.
    return Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]);
  }
  return value;
}

/** `verdict`, or a deny when it escalates with nothing to hold it (no `[approvals]`). */
function holdable(verdict: Verdict): Verdict {
  if (verdict.decision !== 'escalate' || (verdict.approval !== undefined && verdict.approval !== null)) {
    return verdict;
  }
  return denyVerdict(
    GATE_RULES.disabled,
    `a person must approve this call (${verdict.reason ?? 'the policy holds it'}), but the policy has no [approvals] table to hold it, so it is denied`,
  );
}

/**
 * The decisions of one adapter: a host, and the final verdicts it gave.
 * Every call it asks the host about carries the `home` and `cwd`
 * attributes (`withPlace`): `home`, the user's home directory, read once when
 * the gate is made, and `cwd`, the process's working directory at the call,
 * unless the call's context names them.
 */
export class Gate {
  readonly host: Vetter;
  /** The home directory of the user this process runs as (`userHome()`), or null when it has none. */
  readonly home: string | null;
  /** Each run's calls as this gate ruled on them: run -> [(entry key, entry)]. */
  readonly #runs = new Map<string, Array<[string, PriorCall]>>();
  /** When each kept run was last asked about (`performance.now()`, ms). */
  readonly #used = new Map<string, number>();
  readonly #maxHistory: number;
  readonly #maxRuns: number;

  constructor(host: Vetter, options: GateOptions = {}) {
    this.host = host;
    this.home = userHome() ?? null;
    const history = options.maxHistory ?? DEFAULT_MAX_HISTORY;
    this.#maxHistory = Number.isFinite(history) ? Math.max(0, Math.floor(history)) : DEFAULT_MAX_HISTORY;
    const runs = options.maxRuns ?? DEFAULT_MAX_RUNS;
    this.#maxRuns = Number.isFinite(runs) ? Math.max(1, Math.floor(runs)) : DEFAULT_MAX_RUNS;
  }

  /**
   * The calls of run `runId` this gate ruled on, oldest first, with the
   * outcome it decided (`allowed`, `approved`, `escalated`, `rejected`,
   * `denied`): the history every later call of the run is vetted with, so
   * run limits, loop detection and ordering rules hold. Each `settle` is
   * one attempt at the call and adds an entry, even for an identical call
   * under a call id used before (a provider may reuse ids, review s15 N2);
   * a held call asked about again adds nothing while it waits, and takes
   * its final outcome in place (it counts once). `verdict` adds nothing.
   * Copies.
   */
  history(runId: string | undefined): PriorCall[] {
    return (this.#runs.get(JSON.stringify(runId ?? null)) ?? []).map(([, entry]) => ({ ...entry }));
  }

  /**
   * `gated` as the host is asked about it: the user's home and the working
   * directory in its context (`withPlace`), and its run's history (a
   * caller's own history is kept).
   */
  #withHistory(gated: GatedCall): GatedCall {
    const context = withPlace(gated.context, this.home);
    if (context.history === undefined) {
      context.history = this.history(context.runId);
    }
    return { ...gated, context };
  }

  /**
   * A deny when `gated`'s run history is full, or when its run is new and
   * the gate keeps `maxRuns` runs none of which has been idle for
   * `RUN_IDLE_MS` (else the least recently used idle one is forgotten to
   * make room); else undefined.
   */
  #overflow(gated: GatedCall): Verdict | undefined {
    const run = JSON.stringify(gated.context?.runId ?? null);
    const now = performance.now();
    const entries = this.#runs.get(run);
    if (entries === undefined) {
      while (this.#runs.size >= this.#maxRuns) {
        let oldest: string | undefined;
        for (const kept of this.#runs.keys()) {
          if (oldest === undefined || (this.#used.get(kept) ?? -Infinity) < (this.#used.get(oldest) ?? -Infinity)) {
            oldest = kept;
          }
        }
        if (oldest === undefined || now - (this.#used.get(oldest) ?? -Infinity) < RUN_IDLE_MS) {
          return denyVerdict(
            GATE_RULES.tooManyRuns,
            `this gate keeps the history of at most ${this.#maxRuns} runs (maxRuns), and none has been idle for ${RUN_IDLE_MS / 60_000} minutes; a new run is refused rather than forget a run's earlier calls (its run totals would restart from zero)`,
          );
        }
        this.#runs.delete(oldest);
        this.#used.delete(oldest);
      }
    } else {
      this.#used.set(run, now);
    }
    const count = entries?.length ?? 0;
    if (count < this.#maxHistory) {
      return undefined;
    }
    return denyVerdict(
      GATE_RULES.historyOverflow,
      `this run's history holds ${count} earlier calls, the gate's limit (maxHistory = ${this.#maxHistory}); toolvet does not vet a call with earlier calls left out (run totals and what the run did would restart from zero), so the call is refused: start a new run or raise maxHistory`,
    );
  }

  /**
   * Add the ruling about `gated` to its run's history (see `history`). A
   * full history's deny and an invalid call's add nothing: the invalid call
   * ran nothing and, kept, would make every later call of the run invalid
   * (the Python package's `Gate` follows the same rule, review s22 F3).
   */
  #note(gated: GatedCall, verdict: Verdict): void {
    if (
      verdict.rule === GATE_RULES.historyOverflow ||
      verdict.rule === GATE_RULES.tooManyRuns ||
      verdict.rule === RULES.invalidCall
    ) {
      return;
    }
    const run = JSON.stringify(gated.context?.runId ?? null);
    const key = entryKey(gated);
    const outcome = outcomeOf(verdict);
    let entries = this.#runs.get(run);
    if (entries === undefined) {
      entries = [];
    }
    // Room was made when the call was asked about (`#overflow`).
    this.#runs.set(run, entries);
    this.#used.set(run, performance.now());
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, entry] = entries[i] as [string, PriorCall];
      if (k !== key) {
        continue;
      }
      if (entry.outcome === 'escalated') {
        // The held call asked about again: settled in place, or still held.
        entry.outcome = outcome;
        return;
      }
      break;
    }
    entries.push([key, { name: gated.call.name, arguments: historyArguments(gated.call.arguments ?? {}), outcome }]);
  }

  /**
   * The verdict about `gated` now, for a framework asking whether the call
   * needs a person (`needsApproval`, a policy engine): allow, deny, or
   * escalate with its request (`approval.status` says whether a person
   * approved it already). Uses no approval: only `settle` runs a held
   * call. Asked of the host each time, with the run's history. Never
   * rejects.
   */
  async verdict(gated: GatedCall): Promise<Verdict> {
    return this.#asked(gated, async (call) => holdable(await guarded(() => this.host.check(call.call, call.tool, call.context))));
  }

  /**
   * The verdict about `gated` at the point where the tool would run, with
   * the person's `answer` the framework delivered (or none). An answer is
   * taken only for a call toolvet was already holding: it is recorded in
   * toolvet's ledger (the first decision stands) and the call resumes with
   * the request's ticket, so toolvet's ledger decides, and an approval runs
   * the call once. An answer about a call toolvet did not hold is a deny
   * (`toolvet.approval-not-recorded`). A deny stays a deny whatever the
   * answer. Never rejects.
   */
  async settle(gated: GatedCall, answer: FrameworkAnswer | undefined): Promise<Verdict> {
    // Each settle is a run of the call, vetted with the run's history (an
    // id may recur for an identical call).
    return this.#asked(gated, async (call) => {
      const verdict = await this.#decide(call, answer);
      this.#note(call, verdict);
      return verdict;
    });
  }

  /**
   * A person's rejection of `gated`, given through the framework (which
   * will not run the tool): recorded in toolvet's ledger when the request
   * still waits, and a deny with the reviewer's message either way. Uses
   * no approval (a call approved in toolvet first and rejected here does
   * not run, and its approval is not spent). Never rejects.
   */
  async reject(gated: GatedCall, answer: FrameworkAnswer): Promise<Verdict> {
    const held = await this.verdict(gated);
    if (held.decision === 'escalate' && held.approval?.status === 'pending') {
      const failed = await this.#record(held.approval.id, { ...answer, approved: false });
      if (failed !== undefined) {
        return failed;
      }
    }
    const reason = answer.message ? `${answer.reviewer} rejected this call: ${answer.message}` : `${answer.reviewer} rejected this call`;
    const rejected = denyVerdict('approval.rejected', reason);
    try {
      this.#note(asJson(gated), rejected);
    } catch {
      // Arguments JSON cannot hold: `verdict` denied the call already.
    }
    return rejected;
  }

  /**
   * What the checks decide about `gated`, opening no request and using no
   * approval (`host.preview`): for a framework re-asking whether a call it
   * holds an answer for needs approval, where an opened request would make
   * that answer look like one toolvet asked for. Never rejects.
   */
  async preview(gated: GatedCall): Promise<Verdict> {
    try {
      const { call, tool, context } = this.#withHistory(asJson(gated));
      return await guarded(() => this.host.preview(call, tool, context));
    } catch (error) {
      return denyVerdict('toolvet.invalid-call', `invalid tool call: the arguments cannot be read as JSON: ${(error as Error).message}`);
    }
  }

  /**
   * `decide(call)` for `gated` as JSON, with its run's history; a deny for
   * arguments JSON cannot hold, or a full history.
   */
  async #asked(gated: GatedCall, decide: (call: GatedCall) => Promise<Verdict>): Promise<Verdict> {
    let call: GatedCall;
    try {
      call = asJson(gated);
    } catch (error) {
      return denyVerdict('toolvet.invalid-call', `invalid tool call: the arguments cannot be read as JSON: ${(error as Error).message}`);
    }
    const full = this.#overflow(call);
    if (full !== undefined) {
      return full;
    }
    return decide(this.#withHistory(call));
  }

  async #decide(gated: GatedCall, answer: FrameworkAnswer | undefined): Promise<Verdict> {
    const { call, tool, context } = gated;
    const verdict = holdable(await guarded(() => this.host.check(call, tool, context)));
    if (verdict.decision !== 'escalate' || !verdict.approval) {
      return verdict;
    }
    const request = verdict.approval;
    if (answer !== undefined) {
      // A rejection may land on any request: it only ever denies.
      if (request.opened === true && answer.approved) {
        return denyVerdict(
          GATE_RULES.notHeld,
          `the framework reports a person's answer about a call toolvet was not holding, so the answer is not recorded and the call does not run; a reviewer can decide the request it opened now (${request.id})`,
        );
      }
      if (request.status === 'pending') {
        const failed = await this.#record(request.id, answer);
        if (failed !== undefined) {
          return failed;
        }
      }
    } else if (request.status === 'pending') {
      return verdict;
    }
    if (!request.ticket) {
      return verdict;
    }
    return guarded(() => this.host.resume(request.ticket as string, call, tool, context));
  }

  /**
   * The verdict about what the call `gated` returned (`output`; `isError`:
   * the tool failed), asked of the host with the call's run (home, working
   * directory and history as for the call), so the labels it raises reach
   * the run's later calls. A host that vets no results (`vetsResults`
   * false, or no `checkResult`) is not asked: the result passes as is.
   * Never rejects: output JSON cannot hold (a BigInt, a cycle), a host
   * that throws or answers no known action, all withhold the result.
   */
  async vetResult(gated: GatedCall, output: unknown, isError = false): Promise<ResultVerdict> {
    const checkResult = this.host.checkResult;
    if (this.host.vetsResults !== true || checkResult === undefined) {
      return { action: 'pass', content: output, labels: [], checks: [], durationUs: 0 };
    }
    try {
      const content = typeof output === 'string' ? output : (JSON.parse(JSON.stringify(output) ?? 'null') as unknown);
      const { call, tool, context } = this.#withHistory(asJson(gated));
      return saneResult(await checkResult.call(this.host, call, { content, isError }, context, tool));
    } catch (error) {
      return failedResultVerdict(error);
    }
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
      // The model reads this deny: never the error's text, which is written
      // for the person and may name a command or a path (review s12 L3).
      console.warn(`toolvet: a framework's answer was not recorded: ${messageOf(error)}`);
      if (error instanceof ApprovalError && error.kind === 'invalid-review') {
        return denyVerdict(
          'approval.unsigned-decision',
          "this policy does not take the answer given here as a person's decision (it counts only an approval a reviewer gives outside this session), so the call may not run",
        );
      }
      return denyVerdict('approval.ledger-unavailable', 'the answer could not be recorded in the approval ledger, so the call may not run');
    }
  }


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

/** `verdict` if its action is one of the three (with content unless withheld); else a withhold (fail closed). */
export function saneResult(verdict: ResultVerdict): ResultVerdict {
  const action = (verdict as { action?: unknown } | null | undefined)?.action;
  if (action === 'withhold' || ((action === 'pass' || action === 'redact') && verdict.content !== undefined)) {
    return verdict;
  }
  return failedResultVerdict(new Error(`the host answered an unknown result action ${JSON.stringify(action)}`));
}

/** What the model reads in place of a withheld result: who withheld it, and why. */
export function withheldMessage(verdict: ResultVerdict): string {
  return `Withheld by toolvet: ${verdict.reason ?? 'the policy does not let the model read this result'}`;
}

/**
 * What the model reads of a tool's result `original` under `verdict`: the
 * original, unchanged (pass); the masked content (redact); the withheld
 * message (`withheldMessage`), never the original (withhold).
 */
export function resultOutput(verdict: ResultVerdict, original: unknown): unknown {
  switch (verdict.action) {
    case 'pass':
      return original;
    case 'redact':
      return verdict.content;
    default:
      return withheldMessage(verdict);
  }
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
 * The context gets the user's home and working directory as a gate's calls do (`withPlace`).
 * Never rejects.
 */
export async function consult(host: Vetter, query: DecisionQuery, context?: CallContext): Promise<DecisionResult> {
  const verdict = await guarded(() => host.preview({ name: query.tool, arguments: query.arguments }, undefined, withPlace(context)));
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
