import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as client from './index.js';

const sourceDirectory = dirname(fileURLToPath(import.meta.url));

/** Every module the given entry reaches through relative imports, with its import specifiers. */
function importGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pending = [join(sourceDirectory, entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (graph.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/gu)].map((match) => match[1]!);
    graph.set(file, specifiers);
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) pending.push(join(dirname(file), specifier.replace(/\.js$/u, '.ts')));
    }
  }
  return graph;
}

describe('the main entry', () => {
  it('should import nothing but the core (never its Node bridge) and its own files, so that browsers can bundle it', () => {
    const external = new Set<string>();
    for (const specifiers of importGraph('index.ts').values()) for (const specifier of specifiers) if (!specifier.startsWith('.')) external.add(specifier);
    expect([...external].filter((specifier) => !/^@quantum-chat\/core(\/(dialect|sse))?$/u.test(specifier))).toEqual([]);
  });

  it('should export the client, the runner and every error class', () => {
    expect(Object.keys(client).sort()).toEqual([
      'APIConnectionError',
      'APIConnectionTimeoutError',
      'APIResponseValidationError',
      'APIUserAbortError',
      'AuthenticationError',
      'BadRequestError',
      'ConflictError',
      'InternalServerError',
      'NotFoundError',
      'PermissionDeniedError',
      'QuantumChatApiError',
      'RateLimitError',
      'UnprocessableEntityError',
      'createChatClient',
      'defineTool',
      'runTools',
    ]);
  });
});
