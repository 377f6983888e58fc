import { QuantumChatError } from '../errors/quantum-chat-error.js';

/** The deepest nesting of arrays and objects a body may have (decisions §2). */
export const maxJsonDepth = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Decodes bytes as strict UTF-8: invalid sequences are a 400 `invalid_encoding`, never U+FFFD. */
export function decodeUtf8Body(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new QuantumChatError('invalid_encoding', 'The request body is not valid UTF-8.');
  }
}

/**
 * The nesting depth of JSON text, counted over brackets outside strings. It runs before
 * `JSON.parse` so that a 10,000-level body costs one linear scan and no recursion anywhere.
 */
function measureJsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let index = 0;
  const length = text.length;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 34 /* " */) {
      // Skip the string, honouring escapes.
      index++;
      while (index < length) {
        const inner = text.charCodeAt(index);
        if (inner === 92 /* \ */) index += 2;
        else if (inner === 34) break;
        else index++;
      }
    } else if (code === 123 /* { */ || code === 91 /* [ */) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (code === 125 /* } */ || code === 93 /* ] */) {
      depth--;
    }
    index++;
  }
  return deepest;
}

/** Finds a `__proto__` key, or a `constructor` key holding `prototype`, at any depth. */
function findPrototypePollution(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) pending.push(item);
      continue;
    }
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key];
      if (key === '__proto__') return true;
      if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) return true;
      pending.push(child);
    }
  }
  return false;
}

/** Checks an already-parsed value (a host's body parser ran first) for depth and pollution. */
export function checkParsedBody(value: unknown): unknown {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > maxJsonDepth) throw nestingTooDeep();
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  if (findPrototypePollution(value)) throw pollution();
  return value;
}

function nestingTooDeep(): QuantumChatError {
  return new QuantumChatError('nesting_too_deep', `The request body is nested deeper than ${maxJsonDepth} levels.`);
}

function pollution(): QuantumChatError {
  return new QuantumChatError('invalid_json', 'The request body contains a forbidden key (`__proto__` or `constructor.prototype`).');
}

/**
 * Whether the text could hold a forbidden key at all: written plainly, or spelled with `\u`
 * escapes (the only escape that can make a letter). Most bodies have neither, and then the
 * walk over every parsed node is skipped.
 */
function mayHoldForbiddenKey(text: string): boolean {
  return text.includes('__proto__') || text.includes('prototype') || text.includes('\\u');
}

/** Parses JSON text under the body rules of decisions §2. Throws a 400 `QuantumChatError`. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw new QuantumChatError('invalid_json', 'The request body is empty; send a JSON object.');
  if (measureJsonDepth(text, maxJsonDepth) > maxJsonDepth) throw nestingTooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new QuantumChatError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`);
  }
  if (mayHoldForbiddenKey(text) && findPrototypePollution(value)) throw pollution();
  return value;
}
