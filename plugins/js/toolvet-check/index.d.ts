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

/** An earlier call of the run. */
export class PriorCall extends WithArguments {
  constructor(name: string, args?: string, outcome?: Outcome);
  name: string;
  outcome: Outcome;
  /** Whether it went on to run (allowed, or approved by a person). */
  readonly ran: boolean;
}

/** What the agent's owner declared about the tool. */
export class ToolInfo {
  constructor(info?: {
    description?: string | null;
    risk?: string | null;
    requiresApproval?: boolean;
    tags?: string[];
    parametersSchema?: string | null;
  });
  description: string | null;
  risk: string | null;
  requiresApproval: boolean;
  tags: string[];
  /** The parameters' JSON Schema, as JSON text. */
  parametersSchema: string | null;
}

/** The run the call belongs to. */
export class Context {
  constructor(context?: {
    agent?: string | null;
    runId?: string | null;
    principal?: string | null;
    history?: PriorCall[];
    attributes?: [string, string][];
  });
  agent: string | null;
  runId: string | null;
  principal: string | null;
  /** The run's earlier calls, oldest first. */
  history: PriorCall[];
  attributes: [string, string][];
  /** The value of attribute `key` (first match), or null. */
  attribute(key: string): string | null;
}

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
  /** The `[check.settings]` table, an object of `t` types. */
  static settings: Fields;
  constructor(settings: S);
  settings: S;
  /** Vet one call. A throw is logged and traps (the host applies `on_error`). */
  check(call: ToolCall, tool: ToolInfo, ctx: Context): Decision;
  /**
   * Called once at the end of `configure`, before the host snapshots the
   * instance: vet a few typical calls (`warmUpWith`) so what a first call
   * builds is in the snapshot. A throw fails the load. Default: nothing.
   */
  warmUp(): void;
  /** `{ name, version, description, tools }`. */
  static info(): { name: string; version: string; description: string; tools: string[] };
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

/** The host's `log` function (`toolvet:check/host@0.1.0`). */
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
