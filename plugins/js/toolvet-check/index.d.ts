// Types of the toolvet JavaScript kit (index.js): checks written in
// TypeScript, or JavaScript checked by an editor, see the kit's shapes.
// Type-checked against a sample check in `make node-tests`
// (plugins/js/test/kit-types.ts).

/** A decision's kind, weakest first: abstain < allow < escalate < deny. */
export type DecisionKind = 'allow' | 'abstain' | 'deny' | 'escalate';

/**
 * One check's answer about one call. Deny and escalate carry a stable
 * `rule` id and a `message` for the model (deny) or the approver
 * (escalate). Frozen.
 */
export class Decision {
  constructor(kind: DecisionKind, rule?: string, message?: string);
  readonly kind: DecisionKind;
  readonly rule: string | null;
  readonly message: string | null;
  /** abstain (0) < allow (1) < escalate (2) < deny (3). */
  readonly severity: 0 | 1 | 2 | 3;
  /** The more severe of `this` and `other` (`this` on a tie). */
  max(other: Decision): Decision;
}

/** The call may run as far as this check is concerned. */
export function allow(): Decision;
/** This check has no opinion on the call. */
export function abstain(): Decision;
/** The call must not run; `message` says why and what would be acceptable. */
export function deny(rule: string, message: string): Decision;
/** A person must approve the call first; `message` tells them what to look at. */
export function escalate(rule: string, message: string): Decision;
/** The most severe of `decisions` (the first on a tie); `abstain()` when none. */
export function strongest(...decisions: Decision[]): Decision;

/** Logging through the host once `exportCheck` has its `log`; else stderr. */
export const log: {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
};

/** A JSON value does not fit its type: `message` is `<path>: <problem>`. */
export class DecodeError extends Error {}
/** The `[check.settings]` table does not fit `static settings`. */
export class SettingsError extends DecodeError {}
/** A call's arguments do not fit the fields given to `call.args`. */
export class ArgumentsError extends DecodeError {}

/** A short description of a JSON value for error messages, e.g. `string "ten"`. */
export function describeValue(value: unknown): string;

/** A type descriptor of `t`, decoding to `T`. */
export interface Type<T> {
  /** The default; `undefined` makes the field required. */
  readonly dflt: T | undefined;
  /** The decoded value, or a thrown `DecodeError` naming `path`. */
  decode(value: unknown, path: string, strict?: boolean): T;
}

/** An object of `t` types: what `static settings` and `call.args` take. */
export type Fields = Record<string, Type<unknown>>;

/** The decoded shape of `fields`. */
export type Decoded<F extends Fields> = { [K in keyof F]: F[K] extends Type<infer T> ? T : never };

/** Type descriptors; each takes an optional default (absent: required). */
export const t: {
  string(dflt?: string): Type<string>;
  boolean(dflt?: boolean): Type<boolean>;
  number(dflt?: number): Type<number>;
  integer(dflt?: number, opts?: { min?: number; max?: number }): Type<number>;
  oneOf<const C extends readonly string[]>(choices: C, dflt?: C[number]): Type<C[number]>;
  list<T>(item: Type<T>, dflt?: T[]): Type<T[]>;
  record<T>(value: Type<T>, dflt?: Record<string, T>): Type<Record<string, T>>;
  optional<T>(inner: Type<T>, dflt?: T | null): Type<T | null>;
  object<F extends Fields>(fields: F, dflt?: Decoded<F>): Type<Decoded<F>>;
  any(dflt?: unknown): Type<unknown>;
};

/**
 * Decode a parsed JSON value into `fields`, naming the offending path
 * under `root` on error; `strict` (default) rejects unknown keys.
 */
export function decode<F extends Fields>(
  fields: F,
  value: unknown,
  root?: string,
  options?: { strict?: boolean },
): Decoded<F>;

declare class WithArguments {
  /** The arguments as JSON text (an object). */
  arguments: string;
  /** The arguments parsed (`{}` when not a JSON object). */
  readonly json: Record<string, unknown>;
  /** The top-level argument `key`, or `dflt`. */
  get(key: string, dflt?: unknown): unknown;
  /** The top-level argument `key` if it is a string, else null. */
  str(key: string): string | null;
  /**
   * The arguments decoded with `fields`; unknown keys are skipped unless
   * `strict`. Throws `ArgumentsError`.
   */
  args<F extends Fields>(fields: F, options?: { strict?: boolean }): Decoded<F>;
}

/** One proposed tool call. */
export class ToolCall extends WithArguments {
  constructor(name: string, args?: string, id?: string);
  /** The framework's call id (may be empty). */
  id: string;
  name: string;
}

/** How an earlier call of the run ended. */
export type Outcome = 'allowed' | 'denied' | 'escalated' | 'approved' | 'rejected';

/** What became of an earlier call's result (contract 0.2; not filled in by the host yet). */
export interface ResultSummary {
  outcome: 'passed' | 'redacted' | 'withheld';
  labels: Label[];
}

/** An earlier call of the run. */
export class PriorCall extends WithArguments {
  constructor(name: string, args?: string, outcome?: Outcome, returned?: ResultSummary | null);
  name: string;
  outcome: Outcome;
  /** What became of its result when it was vetted, else null (always null for contract 0.1). */
  returned: ResultSummary | null;
  /** Whether it went on to run (allowed, or approved by a person). */
  readonly ran: boolean;
}

/** What an argument is for (contract 0.2), as the WIT names it. */
export type Role =
  | 'shell-command' | 'source-code' | 'file-path' | 'url' | 'host' | 'outbound-content' | 'recipient'
  | 'amount' | 'currency' | 'repository' | 'branch' | 'cloud-resource' | 'environment' | 'query';

/** What a tool does to the world (contract 0.2), as the WIT names it. */
export type Effect =
  | 'read' | 'write' | 'delete' | 'execute' | 'outbound-message' | 'payment' | 'publish' | 'permission-change' | 'deploy';

/** Every role, as the WIT names them. */
export const ROLES: readonly Role[];
/** Every effect, as the WIT names them. */
export const EFFECTS: readonly Effect[];

/** What the host found a call does (contract 0.2). */
export interface ToolFacts {
  readonly effects: Set<Effect>;
  readonly irreversible: boolean;
  readonly protectedTarget: boolean;
  readonly roles: readonly { role: Role; pointer: string; value: string; dialect: string | null }[];
  readonly source:
    | { tag: 'catalog'; val: string }
    | { tag: 'inferred'; val: string[] }
    | { tag: 'declared'; val: null };
}

/** What the agent's owner declared about the tool. */
export class ToolInfo {
  constructor(info?: {
    description?: string | null;
    risk?: string | null;
    requiresApproval?: boolean;
    tags?: string[];
    parametersSchema?: string | null;
    facts?: ToolFacts | null;
  });
  description: string | null;
  risk: string | null;
  requiresApproval: boolean;
  tags: string[];
  /** The parameters' JSON Schema, as JSON text. */
  parametersSchema: string | null;
  /** What the host found the call does, or null (always null for contract 0.1). */
  facts: ToolFacts | null;
}

/** A label for the rest of the run (contract 0.2): 1-64 of `[a-z0-9-]`, at most 32 values of at most 512 bytes. Frozen. */
export class Label {
  /** Throws TypeError for a name or values the host would refuse. */
  constructor(name: string, values?: string[]);
  readonly name: string;
  readonly values: readonly string[];
}

/** A label raised earlier in the run, and where. */
export interface RunLabel {
  readonly name: string;
  readonly values: readonly string[];
  /** The id of the call whose result raised it (may be empty). */
  readonly callId: string;
  readonly tool: string;
  /** The policy's name of the check that raised it. */
  readonly check: string;
}

/** The run the call belongs to. */
export class Context {
  constructor(context?: {
    agent?: string | null;
    runId?: string | null;
    principal?: string | null;
    history?: PriorCall[];
    attributes?: [string, string][];
    labels?: RunLabel[];
  });
  agent: string | null;
  runId: string | null;
  principal: string | null;
  /** The run's earlier calls, oldest first. */
  history: PriorCall[];
  attributes: [string, string][];
  /** Every label raised in the run so far, oldest first (always empty for contract 0.1). */
  labels: RunLabel[];
  /** The value of attribute `key` (first match), or null. */
  attribute(key: string): string | null;
  /** Whether a label `name` was raised in the run. */
  hasLabel(name: string): boolean;
  /** The values of every label `name` of the run, oldest first, without repeats. */
  labelValues(name: string): string[];
}

/** What a tool returned (contract 0.2). */
export class ToolResult {
  constructor(content: string, kind?: 'text' | 'json', isError?: boolean);
  static text(text: string, isError?: boolean): ToolResult;
  static json(text: string, isError?: boolean): ToolResult;
  /** The text, or the JSON text. */
  content: string;
  kind: 'text' | 'json';
  /** The tool reported an error. */
  isError: boolean;
  /** For `json` the parsed value (parsed once), for `text` the text. */
  readonly value: unknown;
  /** Every string the model reads with its JSON Pointer (`''` for a text result). */
  strings(): [string, string][];
}

/** One part of a result to hide: build with `span` or `pointer`. */
export interface Mask {
  readonly kind: string;
  readonly start: number | null;
  readonly end: number | null;
  readonly pointer: string | null;
}

/** A mask as the host receives it: a span in UTF-8 bytes, or a pointer. */
export interface HostMask {
  target: { tag: 'span'; val: [number, number] } | { tag: 'pointer'; val: string };
  kind: string;
}

/** Hide `text.slice(start, end)` of a text result (string indices; the kit converts them to UTF-8 bytes). */
export function span(start: number, end: number, kind: string): Mask;
/** Hide the value at JSON Pointer `at` of a JSON result. */
export function pointer(at: string, kind: string): Mask;

/** A result decision's kind. */
export type ResultDecisionKind = 'allow' | 'abstain' | 'withhold' | 'redact';

/** One check's answer about one result. Frozen. */
export class ResultDecision {
  constructor(
    kind: ResultDecisionKind,
    parts?: { rule?: string | null; message?: string | null; masks?: Mask[]; labels?: Label[]; hostMasks?: HostMask[] | null },
  );
  readonly kind: ResultDecisionKind;
  readonly rule: string | null;
  readonly message: string | null;
  readonly masks: Mask[];
  readonly labels: Label[];
  /** Set by `vetResult`: the masks as the host receives them. */
  readonly hostMasks: HostMask[] | null;
}

/** The model may read the result as far as this check is concerned. */
export function allowResult(labels?: Label[]): ResultDecision;
/** This check has no opinion on the result. */
export function abstainResult(labels?: Label[]): ResultDecision;
/** The model reads `message` instead of the result. */
export function withhold(rule: string, message: string, labels?: Label[]): ResultDecision;
/** The host hides `masks` and the model reads the rest. */
export function redact(masks: Mask | Mask[], labels?: Label[]): ResultDecision;

/** An answer the host would refuse (a mask out of range, a pointer that does not resolve, ...). */
export class ResultError extends Error {}

/** `masks` as the host receives them; throws `ResultError` for one it would refuse. */
export function hostMasks(result: ToolResult, masks: Mask[]): HostMask[];
/** The control-character rule, then `check.checkResult`, checked: what the component answers. */
export function vetResult(check: Check<any>, call: ToolCall, tool: ToolInfo, ctx: Context, result: ToolResult): ResultDecision;

/** The host's limits. */
export const MAX_LABEL_NAME: 64;
export const MAX_LABEL_VALUES: 32;
export const MAX_LABEL_VALUE: 512;
export const MAX_LABELS: 16;
export const MAX_MASKS: 4096;
export const MAX_MASK_KIND: 64;

/**
 * Base class of a check: set the statics and implement `check`. The
 * constructor receives the decoded settings as `this.settings`.
 */
export class Check<S = Record<string, unknown>> {
  /** lower-case-with-dashes */
  static name: string;
  static version: string;
  static description: string;
  /** Default tool-name globs. */
  static tools: string[];
  /**
   * Roles that route a call to the check whatever its tool's name (contract
   * 0.2), e.g. `['shell-command'] as const`. Default none.
   */
  static roles: readonly Role[];
  /**
   * Effects that route a call to the check whatever its tool's name
   * (contract 0.2), e.g. `['outbound-message'] as const`. Default none.
   */
  static effects: readonly Effect[];
  /** The `[check.settings]` table, an object of `t` types. */
  static settings: Fields;
  constructor(settings: S);
  settings: S;
  /** Vet one call. A throw is logged and traps (the host applies `on_error`). */
  check(call: ToolCall, tool: ToolInfo, ctx: Context): Decision;
  /**
   * Optional (contract 0.2): vet what a tool returned for `call`. A check
   * that defines it is exported as `resultCheck` too. A throw is logged and
   * traps (the host withholds unless `on_error` is `allow`).
   */
  checkResult(call: ToolCall, tool: ToolInfo, ctx: Context, result: ToolResult): ResultDecision;
  /** Whether the class defines `checkResult`. */
  static vetsResults(): boolean;
  /**
   * Called once at the end of `configure`, before the host snapshots the
   * instance: vet a few typical calls (`warmUpWith`) so what a first call
   * builds is in the snapshot. A throw fails the load. Default: nothing.
   */
  warmUp(): void;
  /**
   * `{ name, version, description, tools, roles, effects }`. Throws a
   * TypeError naming the check and the name for an unknown role or effect.
   */
  static info(): { name: string; version: string; description: string; tools: string[]; roles: Role[]; effects: Effect[] };
  /** Build the check from settings JSON text, as `configure` does. Throws `SettingsError`. */
  static fromSettingsJson<C extends CheckClass>(this: C, text: string): InstanceType<C>;
}

/** About 1 KB of ordinary agent text, for warm-up calls of checks that scan text. */
export const WARM_UP_TEXT: string;

/**
 * Vet each `[tool, arguments]` call with no context and as a coding
 * agent's (`cwd` = `/home/alice/project`), dropping the decisions; a throw
 * propagates. The usual body of `Check.warmUp`.
 */
export function warmUpWith(check: Check<any>, calls: [string, unknown][]): void;

/** The host's `log` function (`toolvet:check/host@0.2.0`, or `@0.1.0`). */
export type HostLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

/** A subclass of `Check`, whatever its settings. */
// `any`: the settings type is each subclass's own.
export type CheckClass = (abstract new (settings: any) => Check<any>) & Omit<typeof Check, 'prototype'>;

/** The object a component exports as `check`, wrapping `CheckClass`. */
export function exportCheck(CheckClass: CheckClass, hostLog: HostLog): unknown;

/** The rule id of the kit's refusal of control characters (`input.control-character`). */
export const CONTROL_CHARACTER_RULE: 'input.control-character';
/** The first refused control character of `text` as `[utf8ByteOffset, char]`, or null. */
export function findControlCharacter(text: string): [number, string] | null;
/** The kit's deny when the call or context holds a refused control character, or null. */
export function controlCharacter(call: ToolCall, ctx: Context): Decision | null;
/** The control-character rule, then `check.check`: what the component answers. */
export function vet(check: Check<any>, call: ToolCall, tool: ToolInfo, ctx: Context): Decision;

/** A case-insensitive whole-string matcher for `*`/`?` globs. */
export function globMatcher(globs: string[]): (name: string) => boolean;

/** Every string inside a JSON value with its path, depth first. */
export function stringsIn(value: unknown, path?: string): [string, string][];
