import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as client from './index.js';

const sourceDirectory = dirname(fileURLToPath(import.meta.url));

interface ImportRecord {
  specifier: string;
  /** `import type` / `export type`: erased from the JavaScript. */
  typeOnly: boolean;
}

/** Every module the given entry reaches through relative imports, with its imports. */
function importGraph(entry: string): Map<string, ImportRecord[]> {
  const graph = new Map<string, ImportRecord[]>();
  const pending = [join(sourceDirectory, entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (graph.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    const imports = [...text.matchAll(/^(?:import|export)(\s+type\b)?[^;]*?from\s*'([^']+)'|import\s*\(?\s*'([^']+)'/gmu)].map((match) => ({
      specifier: (match[2] ?? match[3])!,
      typeOnly: match[1] !== undefined,
    }));
    graph.set(file, imports);
    for (const { specifier } of imports) {
      if (specifier.startsWith('.')) pending.push(join(dirname(file), specifier.replace(/\.js$/u, '.ts')));
    }
  }
  return graph;
}

describe('the main entry', () => {
  it('should import nothing but the core (never its Node bridge) and its own files, so that browsers can bundle it', () => {
    const external = new Set<string>();
    for (const imports of importGraph('index.ts').values()) for (const { specifier } of imports) if (!specifier.startsWith('.')) external.add(specifier);
    expect([...external].filter((specifier) => !/^@quantum-chat\/core(\/(dialect|sse|json-schema))?$/u.test(specifier))).toEqual([]);
  });

  it('should take code from the core only through its entries without zod (/sse, /dialect, /json-schema loaded lazily): the main entry is for types', () => {
    const valueImports = new Set<string>();
    for (const imports of importGraph('index.ts').values()) {
      for (const { specifier, typeOnly } of imports) if (!specifier.startsWith('.') && !typeOnly) valueImports.add(specifier);
    }
    expect([...valueImports].sort()).toEqual(['@quantum-chat/core/dialect', '@quantum-chat/core/json-schema', '@quantum-chat/core/sse']);
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
