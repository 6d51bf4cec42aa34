// @toolvet/node: toolvet in this Node process. `Host` vets tool calls off
// the JavaScript thread; the framework adapters are the subpath exports
// `@toolvet/node/adk`, `@toolvet/node/openai-agents` and
// `@toolvet/node/ai-sdk`.

export type {
  ApprovalStatus,
  BoundCall,
  CallContext,
  CheckDecision,
  CheckError,
  CheckOutcome,
  CheckSummary,
  Decision,
  Escalation,
  Mode,
  Outcome,
  PriorCall,
  ResultAction,
  ResultCheckOutcome,
  ReviewDecision,
  ReviewRecord,
  RunLabel,
  Scope,
  ToolCall,
  ToolInfo,
  ToolResult,
  Verdict,
  VerdictApproval,
} from '#native';
export { ApprovalError, ConfigError, LoadError, ToolvetError, type ApprovalErrorKind } from './errors.js';
export {
  denyVerdict,
  failedResultVerdict,
  failedVerdict,
  Host,
  RULES,
  withheldVerdict,
  type ApprovalQuery,
  type ApprovalRequest,
  type ResultVerdict,
  type ReviewOptions,
  type StatusFilter,
  type Vetter,
} from './host.js';
export {
  consult,
  denyMessage,
  Gate,
  holdMessage,
  resultOutput,
  RUN_IDLE_MS,
  withheldMessage,
  type DecisionQuery,
  type DecisionResult,
  type FrameworkAnswer,
  type GatedCall,
  type GateOptions,
  withHome,
  withPlace,
  CWD_ATTRIBUTE,
} from './gate.js';
export { HOME_ATTRIBUTE, userHome } from '#native';
export { visible } from './display.js';
