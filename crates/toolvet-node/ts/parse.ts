// Checking what models send: tool arguments that must be a JSON object,
// and a decision tool's query. The messages go back to the model.

import type { DecisionQuery } from './gate.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * `text` parsed as a JSON object.
 * @throws {Error} the text is not JSON, or not an object.
 */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text === '' ? '{}' : text);
  } catch (error) {
    throw new Error(`the tool's arguments are not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) {
    throw new Error(`the tool's arguments must be a JSON object, not ${describe(value)}`);
  }
  return value;
}

/**
 * A decision tool's input as a query: `tool` a non-empty string,
 * `arguments` an object (absent means `{}`).
 * @throws {Error} naming what is wrong, for the model to read.
 */
export function parseDecisionQuery(input: unknown): DecisionQuery {
  if (!isObject(input)) {
    throw new Error(`invalid arguments: expected {"tool": string, "arguments": object}, got ${describe(input)}`);
  }
  const { tool, arguments: args } = input;
  if (typeof tool !== 'string' || tool.trim() === '') {
    throw new Error('invalid arguments: `tool` must be the name of the tool you would call');
  }
  if (args !== undefined && !isObject(args)) {
    throw new Error(`invalid arguments: \`arguments\` must be an object, not ${describe(args)}`);
  }
  return { tool, arguments: args ?? {} };
}

function describe(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
