import { expect } from 'vitest';
import type { CollectedCompletion } from './collected-completion.js';
import type { ExpectedCompletion } from './fixture-schemas.js';

/**
 * Checks what a client rebuilt against a fixture's `.expected.json`. Ids, usage fields and
 * error fields are compared only where the fixture states them.
 */
export function expectCollected(actual: CollectedCompletion, expected: ExpectedCompletion): void {
  if ('error' in expected) {
    expect('error' in actual, `expected an error, the client rebuilt: ${JSON.stringify(actual)}`).toBe(true);
    const error = (actual as { error: Record<string, unknown> }).error;
    for (const [key, value] of Object.entries(expected.error)) expect(error[key], `error.${key}`).toBe(value);
    return;
  }
  if ('error' in actual) expect.fail(`expected a completion, the client reported an error: ${JSON.stringify(actual.error)}`);
  expect(actual.reasoning, 'reasoning').toBe(expected.reasoning);
  expect(actual.content, 'content').toBe(expected.content);
  expect(actual.finishReason, 'finishReason').toBe(expected.finishReason);
  expect(actual.toolCalls.length, `toolCalls (${JSON.stringify(actual.toolCalls)})`).toBe(expected.toolCalls.length);
  expected.toolCalls.forEach((call, index) => {
    const got = actual.toolCalls[index]!;
    expect(got.name, `toolCalls[${index}].name`).toBe(call.name);
    expect(got.arguments, `toolCalls[${index}].arguments`).toBe(call.arguments);
    if (call.id !== undefined) expect(got.id, `toolCalls[${index}].id`).toBe(call.id);
  });
  if (expected.usage !== undefined) {
    expect(actual.usage, 'usage').toBeDefined();
    for (const [key, value] of Object.entries(expected.usage)) {
      expect((actual.usage as unknown as Record<string, unknown>)[key], `usage.${key}`).toBe(value);
    }
  }
}
