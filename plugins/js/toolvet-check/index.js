// The kit for toolvet checks written in JavaScript.
//
// A check is one subclass of `Check` with a `check(call, tool, ctx)` method
// and a `static settings` schema built with `t`. `exportCheck(MyCheck, log)`
// turns it into the object a component exports as `check` (the
// `toolvet:check/check` interface of wit/check-0.2/check.wit, or of
// wit/check.wit for a check built for contract 0.1), built with
// ComponentizeJS. A check that also defines `checkResult(call, tool, ctx,
// result)` vets what tools return: its entry exports the same object as
// `resultCheck` too. The module imports nothing from the component world, so a
// check's logic runs and is unit tested with plain Node.js.
//
//   // my-check.js: the logic, testable with `node --test`
//   import { Check, t, allow, deny } from '../toolvet-check/index.js';
//   export class NoBadWords extends Check {
//     static name = 'no-bad-words';
//     static description = 'Denies calls whose arguments contain blocked words';
//     static settings = { blocked_words: t.list(t.string(), []) };
//     check(call, tool, ctx) {
//       const word = this.settings.blocked_words.find((w) => call.arguments.includes(w));
//       return word ? deny('words.blocked', `the arguments contain \`${word}\``) : allow();
//     }
//   }
//
//   // index.js: the component's entry
//   import { log } from 'toolvet:check/host@0.2.0';
//   import { exportCheck } from '../toolvet-check/index.js';
//   import { NoBadWords } from './my-check.js';
//   export const check = exportCheck(NoBadWords, log);
//
// See docs/write-a-check-javascript.md.

// ---------------------------------------------------------------- decisions

const SEVERITY = { abstain: 0, allow: 1, escalate: 2, deny: 3 };

/**
 * One check's answer about one call: `kind` is `allow`, `abstain`, `deny`
 * or `escalate`; deny and escalate carry a stable `rule` id (e.g.
 * `message.blocked-attachment`) and a `message` for the model (deny) or the
 * approving person (escalate). Build with `allow()`, `abstain()`,
 * `deny(rule, message)`, `escalate(rule, message)`.
 */
export class Decision {
  /**
   * @param {'allow'|'abstain'|'deny'|'escalate'} kind
   * @param {string} [rule]
   * @param {string} [message]
   */
  constructor(kind, rule, message) {
    if (!(kind in SEVERITY)) throw new TypeError(`unknown decision kind ${JSON.stringify(kind)}`);
    if ((kind === 'deny' || kind === 'escalate') && !message) {
      throw new TypeError(`a ${kind} decision needs a message`);
    }
    this.kind = kind;
    this.rule = rule ?? null;
    this.message = message ?? null;
    Object.freeze(this);
  }

  /** abstain (0) < allow (1) < escalate (2) < deny (3). */
  get severity() {
    return SEVERITY[this.kind];
  }

  /** The more severe of `this` and `other` (`this` on a tie). */
  max(other) {
    return other.severity > this.severity ? other : this;
  }

  toString() {
    return this.rule || this.message ? `${this.kind} [${this.rule}] ${this.message}` : this.kind;
  }
}

const ALLOW = new Decision('allow');
const ABSTAIN = new Decision('abstain');

/** The call may run as far as this check is concerned. */
export const allow = () => ALLOW;
/** This check has no opinion on the call. */
export const abstain = () => ABSTAIN;
/** The call must not run. `message` says what is wrong and what would be acceptable; never echo a secret. */
export const deny = (rule, message) => new Decision('deny', rule, message);
/** A person must approve the call first. `message` tells the approver what to look at. */
export const escalate = (rule, message) => new Decision('escalate', rule, message);

/** The most severe of `decisions` (the first on a tie); `abstain()` when none. */
export function strongest(...decisions) {
  return decisions.reduce((a, b) => a.max(b), ABSTAIN);
}

// ---------------------------------------------------------------- logging

let logSink = (level, message) => console.error(`[${level}] ${message}`);

/**
 * Log through the host (`toolvet:check/host.log`) once `exportCheck` has
 * been given the host's `log`; natively the line goes to stderr.
 */
export const log = {
  /** @param {string} message */ debug: (message) => logSink('debug', String(message)),
  /** @param {string} message */ info: (message) => logSink('info', String(message)),
  /** @param {string} message */ warn: (message) => logSink('warn', String(message)),
  /** @param {string} message */ error: (message) => logSink('error', String(message)),
};

// ---------------------------------------------------------------- typed decoding

/**
 * A JSON value does not fit its declared type. `message` is
 * `<path>: <problem>`, e.g. `value.count: expected an integer, got string
 * "ten"`. `decode` throws it; `SettingsError` and `ArgumentsError` say which
 * input failed.
 */
export class DecodeError extends Error {
  constructor(message) {
    super(message);
    this.name = 'DecodeError';
  }
}

/**
 * Invalid settings: `message` names the key, e.g.
 * `settings.max_recipients: expected an integer, got string "ten"`. The
 * host shows it when it refuses to load the check.
 */
export class SettingsError extends DecodeError {
  constructor(message) {
    super(message);
    this.name = 'SettingsError';
  }
}

/**
 * A call's arguments do not fit what `call.args(...)` asked for: `message`
 * names the path, e.g. `arguments.to: expected an array, got number 3`.
 */
export class ArgumentsError extends DecodeError {
  constructor(message) {
    super(message);
    this.name = 'ArgumentsError';
  }
}

/** A short description of a JSON value for error messages, e.g. `string "ten"`. */
export function describeValue(value) {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return `boolean ${value}`;
  if (typeof value === 'number') return `number ${value}`;
  if (typeof value === 'string') {
    const shown = value.length <= 40 ? value : `${value.slice(0, 37)}...`;
    return `string ${JSON.stringify(shown)}`;
  }
  if (Array.isArray(value)) return 'an array';
  return 'an object';
}

const fail = (path, problem) => {
  throw new DecodeError(`${path}: ${problem}`);
};

const isPlainObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

const clone = (v) => (v === undefined ? v : JSON.parse(JSON.stringify(v)));

/**
 * Type descriptors for `static settings` and `call.args(...)`. Each takes an
 * optional default as its last argument; a field without a default is
 * required. Decoding never coerces: a string is not a number. A type's
 * `decode(value, path, strict = true)` returns the decoded value or throws
 * `DecodeError`; `strict` says whether `t.object` rejects unknown keys
 * (only `call.args` passes false, unless asked to be strict).
 */
export const t = {
  /** A string. */
  string: (dflt) => ({
    dflt,
    decode: (v, p) => (typeof v === 'string' ? v : fail(p, `expected a string, got ${describeValue(v)}`)),
  }),
  /** A boolean. */
  boolean: (dflt) => ({
    dflt,
    decode: (v, p) => (typeof v === 'boolean' ? v : fail(p, `expected a boolean, got ${describeValue(v)}`)),
  }),
  /** A finite number. */
  number: (dflt) => ({
    dflt,
    decode: (v, p) =>
      typeof v === 'number' && Number.isFinite(v) ? v : fail(p, `expected a number, got ${describeValue(v)}`),
  }),
  /** A safe integer within `[min, max]` (`opts = { min, max }`). */
  integer: (dflt, opts = {}) => ({
    dflt,
    decode: (v, p) => {
      if (!Number.isSafeInteger(v)) fail(p, `expected an integer, got ${describeValue(v)}`);
      if (opts.min !== undefined && v < opts.min) fail(p, `must be at least ${opts.min} (got ${v})`);
      if (opts.max !== undefined && v > opts.max) fail(p, `must be at most ${opts.max} (got ${v})`);
      return v;
    },
  }),
  /** One of the given strings, e.g. `t.oneOf(['deny', 'escalate'], 'deny')`. */
  oneOf: (choices, dflt) => ({
    dflt,
    decode: (v, p) =>
      choices.includes(v)
        ? v
        : fail(p, `expected one of ${choices.map((c) => JSON.stringify(c)).join(', ')}, got ${describeValue(v)}`),
  }),
  /** An array of `item`. */
  list: (item, dflt) => ({
    dflt,
    decode: (v, p, strict = true) =>
      Array.isArray(v)
        ? v.map((x, i) => item.decode(x, `${p}[${i}]`, strict))
        : fail(p, `expected an array, got ${describeValue(v)}`),
  }),
  /** An object whose values are `value` (any keys). */
  record: (value, dflt) => ({
    dflt,
    decode: (v, p, strict = true) => {
      if (!isPlainObject(v)) fail(p, `expected an object, got ${describeValue(v)}`);
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, value.decode(x, `${p}.${k}`, strict)]));
    },
  }),
  /** `inner` or null; default null. */
  optional: (inner, dflt = null) => ({
    dflt,
    decode: (v, p, strict = true) => (v === null ? null : inner.decode(v, p, strict)),
  }),
  /** An object with these `fields` (each a type); unknown keys are errors when decoding strictly. */
  object: (fields, dflt) => ({
    dflt,
    decode: (v, p, strict = true) => decodeObject(fields, v, p, strict),
  }),
  /** Any JSON value, unchecked. */
  any: (dflt) => ({ dflt, decode: (v) => v }),
};

function decodeObject(fields, value, path, strict = true) {
  if (!isPlainObject(value)) fail(path, `expected an object, got ${describeValue(value)}`);
  if (strict) {
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(fields, key)) {
        const known = Object.keys(fields).sort().join(', ') || 'none';
        fail(`${path}.${key}`, `unknown key (known keys: ${known})`);
      }
    }
  }
  const out = {};
  for (const [key, type] of Object.entries(fields)) {
    if (Object.hasOwn(value, key)) out[key] = type.decode(value[key], `${path}.${key}`, strict);
    else if (type.dflt !== undefined) out[key] = clone(type.dflt);
    else fail(`${path}.${key}`, 'missing required key');
  }
  return out;
}

/**
 * Decode a parsed JSON value into `fields` (an object of `t` types), naming
 * the offending path under `root` on error. With `strict` (the default, and
 * always for settings) a key that no `t.object` at its depth declares is an
 * error; otherwise it is skipped.
 * @throws {DecodeError}
 */
export function decode(fields, value, root = 'value', { strict = true } = {}) {
  return decodeObject(fields, value, root, strict);
}

// ---------------------------------------------------------------- calls and context

class WithArguments {
  /** The arguments as an object, parsed once (`{}` if not a JSON object). */
  get json() {
    if (this._parsed === undefined) {
      let parsed;
      try {
        parsed = JSON.parse(this.arguments);
      } catch {
        parsed = null;
      }
      this._parsed = isPlainObject(parsed) ? parsed : {};
    }
    return this._parsed;
  }

  /** The top-level argument `key`, or `dflt`. */
  get(key, dflt = undefined) {
    return Object.hasOwn(this.json, key) ? this.json[key] : dflt;
  }

  /** The top-level argument `key` if it is a string, else null. */
  str(key) {
    const v = this.json[key];
    return typeof v === 'string' ? v : null;
  }

  /**
   * The arguments decoded with `fields` (an object of `t` types). Keys the
   * fields do not declare are skipped, so a tool that gains a parameter
   * does not break the check; with `{ strict: true }` any unknown key, at
   * any depth, is an error instead. This is the rule of all three kits
   * (Rust: serde's default, `#[serde(deny_unknown_fields)]` for strict).
   * @throws {ArgumentsError} e.g. `arguments.to: expected an array, got number 3`
   */
  args(fields, { strict = false } = {}) {
    try {
      return decode(fields, this.json, 'arguments', { strict });
    } catch (e) {
      if (e instanceof DecodeError) throw new ArgumentsError(e.message);
      throw e;
    }
  }
}

/** One proposed tool call: `id` (may be empty), `name`, `arguments` (JSON object text). */
export class ToolCall extends WithArguments {
  constructor(name, args = '{}', id = '') {
    super();
    this.id = id;
    this.name = name;
    this.arguments = args;
  }
}

/**
 * An earlier call of the run: `name`, `arguments`, `outcome` (`allowed`,
 * `denied`, `escalated`, `approved`, `rejected`) and `returned`: what
 * became of its result (`{ outcome: 'passed'|'redacted'|'withheld',
 * labels: Label[] }`) when it was vetted, else null (always null in a check
 * built for contract 0.1; the host does not fill it in yet).
 */
export class PriorCall extends WithArguments {
  constructor(name, args = '{}', outcome = 'allowed', returned = null) {
    super();
    this.name = name;
    this.arguments = args;
    this.outcome = outcome;
    this.returned = returned;
  }

  /** Whether the call went on to run (allowed, or approved by a person). */
  get ran() {
    return this.outcome === 'allowed' || this.outcome === 'approved';
  }
}

/**
 * What the agent's owner declared about the tool; every field optional.
 * `facts` (contract 0.2) is what the host found the call does, or null
 * (always null in a check built for contract 0.1; a 0.2 host fills it for
 * every call, with no effects and no roles when it found none):
 * `{ effects: Set<string>, irreversible, protectedTarget, roles: [{ role,
 * pointer, value, dialect }], source: { tag: 'catalog'|'inferred'|'declared',
 * val } }`, with effects and roles named as in the WIT (`outbound-message`,
 * `shell-command`, ...).
 */
export class ToolInfo {
  constructor({ description = null, risk = null, requiresApproval = false, tags = [], parametersSchema = null, facts = null } = {}) {
    this.description = description;
    this.risk = risk;
    this.requiresApproval = requiresApproval;
    this.tags = tags;
    this.parametersSchema = parametersSchema;
    this.facts = facts;
  }
}

// The host's limits on labels and masks (crates/toolvet/src/tool_result.rs).
/** Longest label name, in bytes. */
export const MAX_LABEL_NAME = 64;
/** Most values of one label. */
export const MAX_LABEL_VALUES = 32;
/** Longest label value, in bytes of UTF-8. */
export const MAX_LABEL_VALUE = 512;
/** Most labels one check raises about one result. */
export const MAX_LABELS = 16;
/** Most masks one check asks for on one result. */
export const MAX_MASKS = 4096;
/** Longest mask kind, in bytes (the model reads `[redacted: KIND]`). */
export const MAX_MASK_KIND = 64;

/**
 * A label for the rest of the run, raised by a result check (contract 0.2):
 * `name` (1-64 lowercase ASCII letters, digits and `-`, e.g.
 * `untrusted-content`, `secret-seen`) and `values` the result introduced
 * that later calls may be steered to (at most 32, each at most 512 bytes of
 * UTF-8). The host's limits, checked here: a TypeError names what is wrong.
 */
export class Label {
  /** @param {string} name @param {string[]} [values] */
  constructor(name, values = []) {
    if (typeof name !== 'string' || !/^[a-z0-9-]{1,64}$/.test(name)) {
      throw new TypeError(
        `label ${JSON.stringify(String(name).slice(0, MAX_LABEL_NAME))}: a label's name is 1-${MAX_LABEL_NAME} lowercase ASCII letters, digits and \`-\``,
      );
    }
    if (!Array.isArray(values)) throw new TypeError(`label \`${name}\`: values must be an array of strings`);
    if (values.length > MAX_LABEL_VALUES) {
      throw new TypeError(`label \`${name}\`: ${values.length} values, over ${MAX_LABEL_VALUES}`);
    }
    values.forEach((v, i) => {
      if (typeof v !== 'string') throw new TypeError(`label \`${name}\`: values[${i}] is not a string`);
      if (utf8Offset(v, v.length) > MAX_LABEL_VALUE) {
        throw new TypeError(`label \`${name}\`: values[${i}] is over ${MAX_LABEL_VALUE} bytes of UTF-8`);
      }
    });
    this.name = name;
    this.values = [...values];
    Object.freeze(this.values);
    Object.freeze(this);
  }
}

/**
 * The run the call belongs to: `agent`, `runId`, `principal` (or null),
 * `history` (PriorCall[], oldest first), `attributes` ([key, value][]) and
 * `labels`: every label raised in the run so far, oldest first, as `{ name,
 * values, callId, tool, check }` (always empty in a check built for contract
 * 0.1). The host keeps the labels: a caller can neither add nor remove one.
 */
export class Context {
  constructor({ agent = null, runId = null, principal = null, history = [], attributes = [], labels = [] } = {}) {
    this.agent = agent;
    this.runId = runId;
    this.principal = principal;
    this.history = history;
    this.attributes = attributes;
    this.labels = labels;
  }

  /** Whether a label `name` was raised in the run, e.g. `ctx.hasLabel('untrusted-content')`. */
  hasLabel(name) {
    return this.labels.some((l) => l.name === name);
  }

  /** The values of every label `name` raised in the run, oldest first, without repeats. */
  labelValues(name) {
    const out = [];
    for (const l of this.labels) if (l.name === name) for (const v of l.values) if (!out.includes(v)) out.push(v);
    return out;
  }

  /** The value of attribute `key` (first match) or null, e.g. `ctx.attribute('cwd')`. */
  attribute(key) {
    const hit = this.attributes.find(([k]) => k === key);
    return hit ? hit[1] : null;
  }
}

// ---------------------------------------------------------------- the base class

/** The roles a check may route by (`static roles`), as the WIT names them. */
export const ROLES = Object.freeze([
  'shell-command', 'source-code', 'file-path', 'url', 'host', 'outbound-content', 'recipient',
  'amount', 'currency', 'repository', 'branch', 'cloud-resource', 'environment', 'query',
]);

/** The effects a check may route by (`static effects`), as the WIT names them. */
export const EFFECTS = Object.freeze([
  'read', 'write', 'delete', 'execute', 'outbound-message', 'payment', 'publish', 'permission-change', 'deploy',
]);

/**
 * `CheckClass`'s `static roles` or `static effects` (`key`), checked against
 * `known`: a copy without repeats, or a TypeError naming the check and the
 * bad entry.
 */
function routingNames(CheckClass, key, known) {
  const names = CheckClass[key] ?? [];
  const what = key === 'roles' ? 'role' : 'effect';
  if (!Array.isArray(names)) {
    throw new TypeError(`${CheckClass.name}: \`static ${key}\` must be an array of ${what} names, e.g. [${JSON.stringify(known[0])}]`);
  }
  names.forEach((n, i) => {
    if (!known.includes(n)) {
      throw new TypeError(
        `${CheckClass.name}: static ${key}[${i}] is ${typeof n === 'string' ? `the unknown ${what} ${JSON.stringify(n)}` : describeValue(n)}; ` +
          `known ${key}: ${known.join(', ')}`,
      );
    }
  });
  return [...new Set(names)];
}

/**
 * Base class of a check. Subclasses set the statics `name`, `version`,
 * `description`, `tools` (default tool-name globs) and `settings` (an object
 * of `t` types: the `[check.settings]` table), and implement
 * `check(call, tool, ctx)` returning a `Decision`.
 *
 * A check may also set `roles` (names of the WIT's `role`, e.g.
 * `['shell-command']`) and `effects` (names of its `effects` flags, e.g.
 * `['outbound-message']`): a host of contract 0.2 then routes a call to it
 * when the call has an argument of one of those roles or one of those
 * effects, whatever the tool is named, besides the calls its `tools` globs
 * match. A check built for contract 0.1 keeps them to itself (its host
 * routes by tool name only). An unknown name is a TypeError naming the
 * check, at build (`exportCheck`), `describe` and `configure`.
 *
 * The constructor receives the decoded settings (unknown keys and wrong
 * types already rejected with the key's path) and stores them as
 * `this.settings`; override it to validate further (throw `SettingsError`
 * naming the key, e.g. `settings.content_rules[1].pattern: ...`) or to
 * precompute (compile regexes).
 */
export class Check {
  static name = '';
  static version = '0.1.0';
  static description = '';
  static tools = ['*'];
  /** Roles that route a call here whatever its tool's name (contract 0.2), e.g. `['recipient']`. */
  static roles = [];
  /** Effects that route a call here whatever its tool's name (contract 0.2), e.g. `['outbound-message']`. */
  static effects = [];
  static settings = {};

  constructor(settings) {
    this.settings = settings;
  }

  /** Vet one call. A throw is logged and traps, so the host applies `on_error`. */
  check(_call, _tool, _ctx) {
    throw new Error(`${this.constructor.name}.check is not implemented`);
  }

  /**
   * Vet what a tool returned for `call` (contract 0.2): return
   * `allowResult()`, `abstainResult()`, `withhold(rule, message)` or
   * `redact(masks)`, each with optional labels for the rest of the run.
   * Optional: a check that defines it is exported as `resultCheck` too
   * (`export const resultCheck = check;` in the entry), and the component
   * then exports `result-check`. The host calls it only for calls this check
   * applies to, after they ran. A throw (or an answer the host would refuse,
   * `ResultError`) is logged and traps, so the host applies `on_error`: the
   * result is withheld unless it is `allow`.
   */
  checkResult(_call, _tool, _ctx, _result) {
    throw new Error(`${this.constructor.name}.checkResult is not implemented`);
  }

  /** Whether the check defines `checkResult`. */
  static vetsResults() {
    return this.prototype.checkResult !== Check.prototype.checkResult;
  }

  /**
   * Called once at the end of `configure`, before the host snapshots the
   * configured instance: vet a few typical calls here (usually with
   * `warmUpWith`) so that what the first call of every fresh instance would
   * build (the engine's compiled regular expressions and property caches,
   * lazily filled tables) is built once and kept in the snapshot. Derive it
   * from the settings and constants only; a warm-up never sees a real call.
   * A throw fails `configure`, and so the load, naming the check. Default:
   * nothing.
   */
  warmUp() {}

  /**
   * `{ name, version, description, tools, roles, effects }` (the WIT
   * `plugin-info`, with roles and effects as arrays of names). Throws a
   * TypeError naming the check and the name for an unknown role or effect.
   */
  static info() {
    return {
      name: this.name,
      version: this.version,
      description: this.description,
      tools: [...this.tools],
      roles: routingNames(this, 'roles', ROLES),
      effects: routingNames(this, 'effects', EFFECTS),
    };
  }

  /**
   * Build the check from settings JSON text as the host's `configure` does
   * (empty text counts as `{}`).
   * @throws {SettingsError}
   */
  static fromSettingsJson(text) {
    routingNames(this, 'roles', ROLES);
    routingNames(this, 'effects', EFFECTS);
    const source = (text ?? '').trim() || '{}';
    let parsed;
    try {
      parsed = JSON.parse(source);
    } catch (e) {
      throw new SettingsError(`settings: not valid JSON: ${e.message}`);
    }
    if (!isPlainObject(parsed)) throw new SettingsError('settings: expected a JSON object');
    let settings;
    try {
      settings = decode(this.settings, parsed, 'settings');
    } catch (e) {
      if (e instanceof DecodeError) throw new SettingsError(e.message);
      throw e;
    }
    return new this(settings);
  }
}

// ---------------------------------------------------------------- warming up

/**
 * About 1 KB of the ordinary text an agent's arguments carry (prose,
 * numbers, paths, URLs, an e-mail address, log lines and JSON), for the
 * warm-up calls of checks that scan text (the same text as the Python
 * kit's).
 */
export const WARM_UP_TEXT =
  'Weekly report for the platform team, 2024-06-14.\n' +
  'Shipped: the billing export (PR #1842) and the migration of 12 services to ' +
  'the v2 API. The p99 latency of /api/orders fell from 840 ms to 310 ms.\n' +
  'Open: src/jobs/reconcile.py fails weekly with `TimeoutError: read timed out ' +
  '(30.0s)`; see https://github.com/example/app/issues/311 and ' +
  'https://grafana.example.com/d/abc123/orders?orgId=1.\n' +
  'Questions to ops@example.com. Thanks to Dana, Lee and Sam (caf\u00e9 on us)!\n' +
  "2024-06-14T09:12:07Z WARN slow query: 1.84s SELECT * FROM orders WHERE status = 'open'\n" +
  '{"id": 9182, "name": "Quarterly plan", "tags": ["q3", "planning"], "done": false}\n';

/**
 * The usual body of `Check.warmUp`: vet each `[tool, arguments]` call
 * (arguments: a JSON-serialisable object) twice, with no context and as a
 * coding agent's call (attribute `cwd` = `/home/alice/project`), and drop
 * the decisions. A throw from `check` propagates: a check that crashes on
 * a sample call would crash on a real one.
 * @param {Check} check
 * @param {[string, unknown][]} calls
 */
export function warmUpWith(check, calls) {
  const agent = new Context({ agent: 'coder', runId: 'warm-up', attributes: [['cwd', '/home/alice/project']] });
  for (const ctx of [new Context(), agent]) {
    for (const [tool, args] of calls) check.check(new ToolCall(tool, JSON.stringify(args)), new ToolInfo(), ctx);
  }
}

// ---------------------------------------------------------------- control characters

/**
 * The rule id of the kit's refusal of control characters. Before a check sees
 * a call, the kit refuses control characters other than tab and newline (a
 * carriage return only as part of a CRLF line end) in the tool name, every key
 * and string of the arguments, and the context's agent, run id, principal and
 * attributes: the program that reads the text does not read it as the check
 * did (bash drops NUL bytes, so `r\0m -rf ~` runs `rm -rf ~`; file APIs cut a
 * path at a NUL; terminal escapes rewrite what a person reads). DEL and the C1
 * controls are not refused. Not the history (vetted when made) nor the tool
 * info. The same rule, id and message as the Rust and Python kits.
 */
export const CONTROL_CHARACTER_RULE = 'input.control-character';

const SUSPECT = /[\x00-\x08\x0b-\x1f]|\\[bfr]|\\u00[01][0-9a-fA-F]/;
const CONTROL_NAMES = {
  '\x00': 'NUL', '\x07': 'BEL', '\x08': 'backspace', '\x0b': 'vertical tab', '\x0c': 'form feed',
  '\r': 'carriage return', '\x1b': 'ESC',
};

/** UTF-8 length of the code units `s[0..i)`. */
function utf8Offset(s, i) {
  let n = 0;
  for (let k = 0; k < i; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && k + 1 < i) {
      n += 4;
      k += 1;
    } else n += 3;
  }
  return n;
}

/**
 * The first refused control character of `text` as `[utf8ByteOffset, char]`,
 * or null.
 * @param {string} text
 */
export function findControlCharacter(text) {
  for (let i = 0; i < text.length; i++) {
    const n = text.charCodeAt(i);
    if (n >= 0x20 || n === 0x09 || n === 0x0a) continue;
    if (n === 0x0d && text.charCodeAt(i + 1) === 0x0a) continue;
    return [utf8Offset(text, i), text[i]];
  }
  return null;
}

function childPath(parent, key) {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

function refusal(path, inKey, [offset, c]) {
  const what = inKey ? 'The key' : 'The value of';
  const name = CONTROL_NAMES[c] ? ` (${CONTROL_NAMES[c]})` : '';
  const shown = `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  return deny(
    CONTROL_CHARACTER_RULE,
    `${what} \`${path}\` holds the control character ${shown}${name} at byte ${offset}. Control characters ` +
      'other than tab and newline (and a carriage return other than in a CRLF line end) are refused in every ' +
      'argument: the program that reads the text does not read it as this check does (bash drops NUL bytes, ' +
      'file APIs cut a path at one, terminal escapes rewrite what a person reads). Send the text without it.',
  );
}

function walkControl(value, path) {
  if (typeof value === 'string') {
    const hit = findControlCharacter(value);
    return hit ? refusal(path, false, hit) : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walkControl(value[i], `${path}[${i}]`);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const child = childPath(path, k);
      const hit = findControlCharacter(k);
      if (hit) return refusal(child, true, hit);
      const found = walkControl(v, child);
      if (found) return found;
    }
  }
  return null;
}

/**
 * The kit's deny when `call` or `ctx` holds a refused control character, or
 * null (the check may look at the call).
 * @param {ToolCall} call
 * @param {Context} ctx
 */
export function controlCharacter(call, ctx) {
  let hit = findControlCharacter(call.name);
  if (hit) return refusal('name', false, hit);
  const suspect = SUSPECT.exec(call.arguments);
  if (suspect) {
    let parsed;
    try {
      parsed = JSON.parse(call.arguments);
    } catch {
      // Not JSON (the host never sends that): refuse the text as a whole.
      hit = findControlCharacter(call.arguments);
      const token = suspect[0];
      const c = { '\\b': '\x08', '\\f': '\x0c', '\\r': '\r' }[token] ?? String.fromCharCode(parseInt(token.slice(2), 16));
      return refusal('arguments', false, hit ?? [utf8Offset(call.arguments, suspect.index), c]);
    }
    const found = walkControl(parsed, 'arguments');
    if (found) return found;
  }
  for (const [path, value] of [['context.agent', ctx.agent], ['context.run_id', ctx.runId], ['context.principal', ctx.principal]]) {
    hit = value ? findControlCharacter(value) : null;
    if (hit) return refusal(path, false, hit);
  }
  for (const [k, v] of ctx.attributes ?? []) {
    const path = childPath('context.attributes', k);
    hit = findControlCharacter(k);
    if (hit) return refusal(path, true, hit);
    hit = findControlCharacter(v);
    if (hit) return refusal(path, false, hit);
  }
  return null;
}

/**
 * What the component answers about `call`: the kit's deny (rule
 * `input.control-character`) when the call holds a refused control
 * character, else `check.check(call, tool, ctx)`. The component calls this,
 * so no check can skip the rule; unit tests call it to see what the host sees.
 * @param {Check} check
 * @param {ToolCall} call
 * @param {ToolInfo} tool
 * @param {Context} ctx
 */
export function vet(check, call, tool, ctx) {
  return controlCharacter(call, ctx) ?? check.check(call, tool, ctx);
}

// ---------------------------------------------------------------- results (contract 0.2)

/**
 * A result check's answer the host would refuse: a mask out of range, on the
 * wrong kind of result, cutting a character in two or with a bad kind, a
 * pointer that does not resolve, too many masks. Inside a component it
 * traps, so the host applies the check's `on_error` (default: the result is
 * withheld).
 */
export class ResultError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ResultError';
  }
}

/**
 * What a tool returned: `kind` (`text`: text as the model will read it;
 * `json`: a JSON value's text, e.g. MCP `structuredContent`), `content` (the
 * text or the JSON text), `isError` (the tool reported an error), and
 * `value`: for `json` the parsed value (parsed once), for `text` the text.
 */
export class ToolResult {
  /** @param {string} content @param {'text'|'json'} [kind] @param {boolean} [isError] */
  constructor(content, kind = 'text', isError = false) {
    if (kind !== 'text' && kind !== 'json') throw new TypeError(`a result's kind is 'text' or 'json', not ${JSON.stringify(kind)}`);
    this.content = content;
    this.kind = kind;
    this.isError = isError;
  }

  /** A text result. */
  static text(text, isError = false) {
    return new ToolResult(text, 'text', isError);
  }

  /** A JSON result, from its text. */
  static json(text, isError = false) {
    return new ToolResult(text, 'json', isError);
  }

  get value() {
    if (this._value === undefined) this._value = this.kind === 'json' ? JSON.parse(this.content) : this.content;
    return this._value;
  }

  /**
   * Every string the model reads, with where it is: for text `[['',
   * text]]`; for JSON `[pointer, string]` for each string value (not keys),
   * depth first, e.g. `['/items/0/email', 'a@example.com']`, so a check can
   * `pointer(...)` the one it wants hidden.
   * @returns {[string, string][]}
   */
  strings() {
    if (this.kind === 'text') return [['', this.content]];
    const out = [];
    const walk = (v, p) => {
      if (typeof v === 'string') out.push([p, v]);
      else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${p}/${i}`));
      else if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) walk(x, `${p}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    };
    walk(this.value, '');
    return out;
  }
}

/**
 * Hide `text.slice(start, end)` of a text result (JavaScript string
 * indices, e.g. a regular expression match's `index` and `index +
 * match[0].length`); the model reads `[redacted: KIND]` there. The kit turns
 * the indices into the UTF-8 byte offsets the host expects. `kind`: 1-64
 * ASCII letters, digits, `-` or `_`.
 */
export const span = (start, end, kind) => Object.freeze({ kind, start, end, pointer: null });

/** Hide the value at JSON Pointer `at` (RFC 6901, e.g. `/items/0/email`) of a JSON result. */
export const pointer = (at, kind) => Object.freeze({ kind, start: null, end: null, pointer: at });

const RESULT_KINDS = ['allow', 'abstain', 'withhold', 'redact'];

/**
 * One check's answer about one result: `kind` (`allow`, `abstain`,
 * `withhold`, `redact`); for withhold a stable `rule` and the `message` the
 * model reads instead of the result (never repeat what was withheld); for
 * redact the `masks` (`span`, `pointer`); and `labels` (Label[]) for the
 * rest of the run, with any kind. `vetResult` fills in `hostMasks`: the
 * masks as the host receives them (`{ target: { tag: 'span', val: [startByte,
 * endByte] } | { tag: 'pointer', val }, kind }`). Build with
 * `allowResult()`, `abstainResult()`, `withhold(rule, message)` and
 * `redact(masks)`.
 */
export class ResultDecision {
  constructor(kind, { rule = null, message = null, masks = [], labels = [], hostMasks = null } = {}) {
    if (!RESULT_KINDS.includes(kind)) throw new TypeError(`unknown result decision kind ${JSON.stringify(kind)}`);
    if (kind === 'withhold' && !message) throw new TypeError('a withhold needs a message');
    if (kind !== 'withhold' && (rule !== null || message !== null)) throw new TypeError(`an ${kind} result decision carries no rule or message`);
    if (kind === 'redact' && !masks.length) throw new TypeError('a redact needs at least one mask (allowResult() hides nothing)');
    if (kind !== 'redact' && masks.length) throw new TypeError(`an ${kind} result decision carries no masks`);
    if (!labels.every((l) => l instanceof Label)) throw new TypeError('labels are toolvet-check Label(name, values)');
    if (labels.length > MAX_LABELS) throw new TypeError(`${labels.length} labels, over ${MAX_LABELS}`);
    this.kind = kind;
    this.rule = rule;
    this.message = message;
    this.masks = [...masks];
    this.labels = [...labels];
    this.hostMasks = hostMasks;
    Object.freeze(this);
  }

  toString() {
    let shown = this.kind === 'withhold' ? `withhold [${this.rule}] ${this.message}` : this.kind === 'redact' ? `redact ${this.masks.length} mask(s)` : this.kind;
    if (this.labels.length) shown += ` labels ${this.labels.map((l) => l.name).join(', ')}`;
    return shown;
  }
}

/** The model may read the result as far as this check is concerned. */
export const allowResult = (labels = []) => new ResultDecision('allow', { labels });
/** This check has no opinion on the result. */
export const abstainResult = (labels = []) => new ResultDecision('abstain', { labels });
/** The model reads `message` instead of the result; say what was wrong without repeating it. */
export const withhold = (rule, message, labels = []) => new ResultDecision('withhold', { rule, message, labels });
/** The host hides `masks` (one mask or an array of `span`/`pointer`) and the model reads the rest. */
export const redact = (masks, labels = []) => new ResultDecision('redact', { masks: Array.isArray(masks) ? masks : [masks], labels });

/** Whether JSON Pointer `at` names a value inside `value` (RFC 6901). */
function resolves(value, at) {
  for (const raw of at.split('/').slice(1)) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(value)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= value.length) return false;
      value = value[Number(token)];
    } else if (isPlainObject(value)) {
      if (!Object.hasOwn(value, token)) return false;
      value = value[token];
    } else return false;
  }
  return true;
}

const isLowSurrogate = (c) => c >= 0xdc00 && c <= 0xdfff;
const isHighSurrogate = (c) => c >= 0xd800 && c <= 0xdbff;

/**
 * `masks` as the host receives them: spans in UTF-8 byte offsets of the
 * text, pointers as given. Throws `ResultError` for any mask the host would
 * refuse (the same rules: a non-empty span inside the text and not inside a
 * character (between the halves of a surrogate pair), on a text result; a
 * non-empty pointer that resolves, on a JSON result; a kind of 1-64 ASCII
 * letters, digits, `-` or `_`; at most 4096 masks).
 * @param {ToolResult} result
 */
export function hostMasks(result, masks) {
  if (masks.length > MAX_MASKS) throw new ResultError(`redact: ${masks.length} masks, over ${MAX_MASKS}`);
  const text = result.content;
  const out = masks.map((m, i) => {
    const where = `redact: masks[${i}]`;
    if (typeof m?.kind !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(m.kind)) {
      throw new ResultError(`${where}: a mask's kind is 1-${MAX_MASK_KIND} ASCII letters, digits, \`-\` or \`_\`, not ${JSON.stringify(String(m?.kind).slice(0, MAX_MASK_KIND))}`);
    }
    if (m.pointer !== null && m.pointer !== undefined) {
      if (result.kind !== 'json') throw new ResultError(`${where}: a pointer mask on a text result: use span(start, end, kind)`);
      if (typeof m.pointer !== 'string' || !m.pointer.startsWith('/')) {
        throw new ResultError(`${where}: the pointer ${JSON.stringify(m.pointer)} is not a JSON Pointer inside the value (it starts with \`/\`; to hide the whole result, withhold it)`);
      }
      if (!resolves(result.value, m.pointer)) throw new ResultError(`${where}: the pointer ${JSON.stringify(m.pointer)} does not resolve in the result`);
      return { target: { tag: 'pointer', val: m.pointer }, kind: m.kind };
    }
    if (result.kind !== 'text') throw new ResultError(`${where}: a span mask on a JSON result: use pointer(at, kind)`);
    const { start, end } = m;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || !(start >= 0 && start < end && end <= text.length)) {
      throw new ResultError(`${where}: the span ${start}..${end} is empty or outside the text's ${text.length} code units`);
    }
    for (const at of [start, end]) {
      if (at > 0 && at < text.length && isLowSurrogate(text.charCodeAt(at)) && isHighSurrogate(text.charCodeAt(at - 1))) {
        throw new ResultError(`${where}: the span ${start}..${end} cuts a character in two at ${at} (between the halves of a surrogate pair)`);
      }
    }
    return { target: { tag: 'span', val: [start, end] }, kind: m.kind };
  });
  // One pass over the text: the UTF-8 byte offset of every span index.
  const wanted = [...new Set(out.filter((m) => m.target.tag === 'span').flatMap((m) => m.target.val))].sort((a, b) => a - b);
  const bytes = new Map();
  let at = 0;
  let byte = 0;
  for (const i of wanted) {
    byte += utf8Offset(text.slice(at, i), i - at);
    at = i;
    bytes.set(i, byte);
  }
  return out.map((m) =>
    m.target.tag === 'span' ? { target: { tag: 'span', val: [bytes.get(m.target.val[0]), bytes.get(m.target.val[1])] }, kind: m.kind } : m,
  );
}

/**
 * What the component answers about `result`: the kit's withhold (rule
 * `input.control-character`, the call rule's message) when the call or
 * context holds a refused control character, else `check.checkResult(call,
 * tool, ctx, result)`, checked against the host's rules, with `hostMasks`
 * filled in. The result itself may hold any character: results are not
 * refused for control characters. Throws TypeError when `checkResult`
 * returns something else than a ResultDecision, `ResultError` for a mask the
 * host would refuse. The component calls this; unit tests call it to see
 * what the host sees.
 */
export function vetResult(check, call, tool, ctx, result) {
  const refused = controlCharacter(call, ctx);
  if (refused) return new ResultDecision('withhold', { rule: refused.rule, message: refused.message, hostMasks: [] });
  const decision = check.checkResult(call, tool, ctx, result);
  if (!(decision instanceof ResultDecision)) {
    throw new TypeError(
      'checkResult() must return a ResultDecision: allowResult(), abstainResult(), withhold(rule, message) or redact(masks)',
    );
  }
  const { kind, rule, message, masks, labels } = decision;
  return new ResultDecision(kind, { rule, message, masks, labels, hostMasks: hostMasks(result, masks) });
}

// ---------------------------------------------------------------- the component export

function toDecision(d) {
  if (d.kind === 'allow' || d.kind === 'abstain') return { tag: d.kind };
  return { tag: d.kind, val: { message: d.message, rule: d.rule ?? undefined } };
}

/** A WIT flags value (`{ outboundMessage: true, ... }`) as the set of its names (`outbound-message`). */
const flagNames = (flags) =>
  new Set(Object.entries(flags ?? {}).filter(([, on]) => on).map(([k]) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)));

/** Effect names (`outbound-message`) as the WIT flags value, every flag present (`{ outboundMessage: true, read: false, ... }`). */
const toFlags = (names) =>
  Object.fromEntries(EFFECTS.map((e) => [e.replace(/-([a-z])/g, (_, c) => c.toUpperCase()), names.includes(e)]));

/** The host's `tool-info` as the kit's ToolInfo (contract 0.1 has no facts). */
function toToolInfo(tool) {
  const f = tool.facts;
  const facts = f
    ? Object.freeze({
        effects: flagNames(f.effects),
        irreversible: f.irreversible,
        protectedTarget: f.protectedTarget,
        roles: f.roles.map((r) => Object.freeze({ role: r.role, pointer: r.pointer, value: r.value, dialect: r.dialect ?? null })),
        source: Object.freeze({ tag: f.source.tag, val: f.source.val ?? null }),
      })
    : null;
  return new ToolInfo({ ...tool, facts });
}

const toLabels = (labels) => labels.map((l) => new Label(l.name, l.values));

/** The host's `call-context` as the kit's Context (contract 0.1 has no labels or results). */
function toContext(ctx) {
  return new Context({
    agent: ctx.agent ?? null,
    runId: ctx.runId ?? null,
    principal: ctx.principal ?? null,
    history: ctx.history.map(
      (p) => new PriorCall(p.name, p.arguments, p.outcome, p.returned ? { outcome: p.returned.outcome, labels: toLabels(p.returned.labels) } : null),
    ),
    attributes: ctx.attributes,
    labels: (ctx.labels ?? []).map((r) =>
      Object.freeze({ name: r.label.name, values: [...r.label.values], callId: r.callId, tool: r.tool, check: r.check }),
    ),
  });
}

function toResultDecision(d) {
  const labels = d.labels.map((l) => ({ name: l.name, values: [...l.values] }));
  if (d.kind === 'allow' || d.kind === 'abstain') return { action: { tag: d.kind }, labels };
  if (d.kind === 'withhold') return { action: { tag: 'withhold', val: { message: d.message, rule: d.rule ?? undefined } }, labels };
  return { action: { tag: 'redact', val: d.hostMasks }, labels };
}

/**
 * The object a component exports as `check`, wrapping `CheckClass`. Pass
 * the host's `log` (imported from `toolvet:check/host@0.2.0`, or
 * `@0.1.0` for a check built for contract 0.1, in the component's entry
 * module) so `log.*` reaches the host.
 *
 * A check with `checkResult` exports the same object as `resultCheck` too
 * (it also has `checkResult`), and the build then targets the
 * `result-plugin` world of contract 0.2:
 *
 *   export const check = exportCheck(MyCheck, log);
 *   export const resultCheck = check;
 *
 * Validates the class (its name, `check`, and the names in `static roles`
 * and `static effects`) and builds it once from `{}`, so a check whose
 * defaults are invalid, or that names an unknown role or effect, fails the
 * build. The configured check lives for the
 * instance; if `check` runs before `configure` (a host bug) it is built
 * from `{}`.
 */
export function exportCheck(CheckClass, hostLog) {
  if (!(CheckClass.prototype instanceof Check)) throw new TypeError('exportCheck() takes a subclass of Check');
  // A class's `name` defaults to its identifier (e.g. `MessageGuard`), so
  // an unset `static name` shows as a name that is no plugin name.
  if (!/^[a-z0-9][a-z0-9-]*$/.test(CheckClass.name)) {
    throw new TypeError(
      `${CheckClass.name}: set \`static name\` to the plugin name in lower-case-with-dashes, e.g. "message-guard"`,
    );
  }
  if (CheckClass.prototype.check === Check.prototype.check) {
    throw new TypeError(`${CheckClass.name} must implement check(call, tool, ctx)`);
  }
  CheckClass.info(); // an unknown role or effect fails the build
  CheckClass.fromSettingsJson('{}');
  if (hostLog) logSink = (level, message) => hostLog(level, message);

  let configured = null;
  const exported = {
    describe() {
      // Contract 0.2's roles (enum names, as the WIT spells them) and
      // effects (a flags object); a check built for 0.1 has a plugin-info
      // without either, and its bindings leave them out.
      const info = CheckClass.info();
      return { ...info, effects: toFlags(info.effects) };
    },
    configure(settings) {
      // The WIT result's error string: `<Class>: static effects[0] is the
      // unknown effect "sends"; known effects: ...`.
      try {
        CheckClass.info();
      } catch (e) {
        throw String(e?.message ?? e);
      }
      let built;
      try {
        built = CheckClass.fromSettingsJson(settings);
      } catch (e) {
        // The WIT result's error string: a constructor's own `decode` of a
        // nested value names its path too.
        if (e instanceof DecodeError) throw e.message;
        log.error(`configure threw: ${e}\n${e?.stack ?? ''}`);
        throw `settings: the check failed to start: ${e}`;
      }
      try {
        built.warmUp();
      } catch (e) {
        log.error(`warmUp threw: ${e}\n${e?.stack ?? ''}`);
        throw `the check failed to warm up: ${e}`;
      }
      configured = built;
    },
    check(call, tool, ctx) {
      try {
        configured ??= CheckClass.fromSettingsJson('{}');
        const decision = vet(configured, new ToolCall(call.name, call.arguments, call.id), toToolInfo(tool), toContext(ctx));
        if (!(decision instanceof Decision)) {
          throw new TypeError(
            'check() must return a Decision: allow(), abstain(), deny(rule, message) or escalate(rule, message)',
          );
        }
        return toDecision(decision);
      } catch (e) {
        // Log, then trap: the host records the error and applies on_error,
        // and puts the first line (the error) and the first frame in the
        // failure's message. SpiderMonkey's `stack` holds the frames only.
        log.error(`check threw: ${e}\n${e?.stack ?? ''}`);
        throw e;
      }
    },
  };
  if (CheckClass.vetsResults()) {
    exported.checkResult = (call, tool, ctx, returned) => {
      try {
        configured ??= CheckClass.fromSettingsJson('{}');
        const result = new ToolResult(returned.content.val, returned.content.tag, returned.isError);
        const decision = vetResult(configured, new ToolCall(call.name, call.arguments, call.id), toToolInfo(tool), toContext(ctx), result);
        return toResultDecision(decision);
      } catch (e) {
        // As for `check`: log, then trap; the host records the error and
        // applies on_error (withhold unless it is `allow`).
        log.error(`checkResult threw: ${e}\n${e?.stack ?? ''}`);
        throw e;
      }
    };
  }
  return exported;
}

// ---------------------------------------------------------------- helpers

/**
 * A matcher for shell-style globs (`*` any run of characters, `?` one
 * character; everything else literal), case-insensitive, whole string.
 * @param {string[]} globs
 * @returns {(name: string) => boolean}
 */
export function globMatcher(globs) {
  const res = globs.map((g) => {
    const body = [...g].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('');
    return new RegExp(`^${body}$`, 'is');
  });
  return (name) => res.some((re) => re.test(name));
}

/**
 * Every string inside a JSON value with its path, depth first, e.g.
 * `[['body', '...'], ['blocks[0].text', '...']]`.
 */
export function stringsIn(value, path = '') {
  const out = [];
  const walk = (v, p) => {
    if (typeof v === 'string') out.push([p, v]);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${p}[${i}]`));
    else if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) walk(x, p ? `${p}.${k}` : k);
  };
  walk(value, path);
  return out;
}
