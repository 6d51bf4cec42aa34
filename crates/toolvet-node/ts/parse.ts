// Checking what models send: tool arguments that must be a JSON object,
// and a decision tool's query. The messages go back to the model.

import type { DecisionQuery } from './gate.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * `text` parsed as a JSON object. Text with a key twice in one object, at
 * any depth, is refused: `JSON.parse` keeps the last copy, while a tool's
 * own reader may keep the first, so the checks would vet one value and the
 * tool run another (the core's strict reader, which the hooks use, refuses
 * it too; the Python package's gate the same, review s22 F5).
 * @throws {Error} the text is not JSON, not an object, or has a key twice.
 */
export function parseJsonObject(text: string): Record<string, unknown> {
  const source = text === '' ? '{}' : text;
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new Error(`the tool's arguments are not valid JSON: ${(error as Error).message}`);
  }
  const twice = repeatedKey(source);
  if (twice !== undefined) {
    throw new Error(
      `the tool's arguments have the key ${JSON.stringify(twice)} twice in one object; toolvet refuses them, since the tool's reader may take the copy the checks did not see`,
    );
  }
  if (!isObject(value)) {
    throw new Error(`the tool's arguments must be a JSON object, not ${describe(value)}`);
  }
  return value;
}

/**
 * The first key that appears twice in one object of `text`, which
 * `JSON.parse` has read (so it is JSON), or undefined. Keys are compared
 * after their escapes are decoded (`"a"` and `"\u0061"` are one key).
 */
export function repeatedKey(text: string): string | undefined {
  // One entry per open container: the keys of an object, or null for an array.
  const open: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') {
        end += text[end] === '\\' ? 2 : 1;
      }
      const keys = open.at(-1);
      if (expectKey && keys) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) {
          return key;
        }
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === '{') {
      open.push(new Set());
      expectKey = true;
    } else if (c === '[') {
      open.push(null);
      expectKey = false;
    } else if (c === '}' || c === ']') {
      open.pop();
      expectKey = false;
    } else if (c === ',') {
      expectKey = open.at(-1) != null;
    }
  }
  return undefined;
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
