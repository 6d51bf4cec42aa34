// Errors the package throws: `Error` subclasses whose messages are the
// `toolvet` CLI's. The native addon returns failures as values with a code
// (napi-rs rejects promises only with its own status codes); `unwrap`
// throws them as these classes.

/** Base class of every error toolvet throws. `code` names the kind. */
export class ToolvetError extends Error {
  readonly code: string;
  constructor(message: string, code: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The policy cannot be read or is not a valid policy. */
export class ConfigError extends ToolvetError {}

/**
 * A check failed to load (every failing check is listed), or the engine,
 * the decision log, or the approvals ledger or key could not be opened.
 */
export class LoadError extends ToolvetError {}

/** Why an approvals operation was refused or failed. */
export type ApprovalErrorKind =
  | 'not-found'
  | 'already-decided'
  | 'expired'
  | 'invalid-review'
  | 'invalid-query'
  | 'changed'
  | 'unavailable'
  | 'unsupported';

/**
 * An approvals operation that was refused (`not-found`, `already-decided`,
 * `expired`, `invalid-review`, `invalid-query`; `changed`: the request is no
 * longer what the reviewer was shown) or could not be done
 * (`unavailable`: the ledger or key failed; `unsupported`: the policy has
 * no `[approvals]` table or names a ledger this build cannot open).
 */
export class ApprovalError extends ToolvetError {
  readonly kind: ApprovalErrorKind;
  constructor(message: string, code: string, kind: ApprovalErrorKind, options?: ErrorOptions) {
    super(message, code, options);
    this.kind = kind;
  }
}

const APPROVAL_KINDS: Record<string, ApprovalErrorKind> = {
  TOOLVET_APPROVAL_NOT_FOUND: 'not-found',
  TOOLVET_APPROVAL_ALREADY_DECIDED: 'already-decided',
  TOOLVET_APPROVAL_EXPIRED: 'expired',
  TOOLVET_APPROVAL_INVALID_REVIEW: 'invalid-review',
  TOOLVET_APPROVAL_INVALID_QUERY: 'invalid-query',
  TOOLVET_APPROVAL_CHANGED: 'changed',
  TOOLVET_APPROVAL_UNAVAILABLE: 'unavailable',
  TOOLVET_APPROVAL_UNSUPPORTED: 'unsupported',
};

/** A failure the native addon returns in place of a result. */
export interface NativeFailure {
  errorCode: string;
  message: string;
}

/** Whether the addon's `result` is a failure. */
export function isFailure(result: unknown): result is NativeFailure {
  return (
    result !== null &&
    typeof result === 'object' &&
    typeof (result as { errorCode?: unknown }).errorCode === 'string' &&
    typeof (result as { message?: unknown }).message === 'string'
  );
}

/** The toolvet error for a failure the native addon returned: its class follows the code. */
export function fromFailure({ errorCode: code, message }: NativeFailure): ToolvetError {
  switch (code) {
    case 'TOOLVET_CONFIG':
      return new ConfigError(message, code);
    case 'TOOLVET_LOAD':
      return new LoadError(message, code);
  }
  const kind = APPROVAL_KINDS[code];
  return kind === undefined ? new ToolvetError(message, code) : new ApprovalError(message, code, kind);
}

/** The addon's result, or its failure thrown as a toolvet error. */
export async function unwrap<T>(result: Promise<T | NativeFailure>): Promise<T> {
  const value = await result;
  if (isFailure(value)) {
    throw fromFailure(value);
  }
  return value;
}

/** The message of any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
