import { expect } from 'vitest';
import type { CollectedCompletion } from './collected-completion.js';
import type { ExpectedCompletion } from './fixture-schemas.js';

/**
 * How a reader under test differs, by design, from a client that reports a stream as sent.
 * The fixtures say what the stream says; these say how a reader is allowed to restate it.
 */
export interface StreamReaderTraits {
  /** It splits a leading `<think>` block out of the content (the upstream engine): a fixture's `thinkTags` apply. */
  splitsThinkTags?: boolean;
  /** It reports finish reasons as our wire does (decisions §3): `length` stays, `tool_calls` when there are calls, else `stop`. */
  ownFinishReasons?: boolean;
  /** It gives tool calls ids of its own: the server's ids are not compared. */
  ownToolCallIds?: boolean;
  /** It reports a failed stream as its own error (an `upstream_error`…): only the server's message is compared, as part of its message. */
  ownErrors?: boolean;
}

/**
 * Checks what a reader rebuilt against a fixture's `.expected.json`. Ids, usage fields and
 * error fields are compared only where the fixture states them.
 */
export function expectCollected(actual: CollectedCompletion, expected: ExpectedCompletion, traits: StreamReaderTraits = {}): void {
  if ('error' in expected) {
    expect('error' in actual, `expected an error, the reader rebuilt: ${JSON.stringify(actual)}`).toBe(true);
    const error = (actual as { error: Record<string, unknown> }).error;
    if (traits.ownErrors) {
      if (expected.error.message !== undefined) expect(String(error.message), 'error.message').toContain(expected.error.message);
      return;
    }
    for (const [key, value] of Object.entries(expected.error)) expect(error[key], `error.${key}`).toBe(value);
    return;
  }
  if ('error' in actual) expect.fail(`expected a completion, the reader reported an error: ${JSON.stringify(actual.error)}`);
  const text = traits.splitsThinkTags && expected.thinkTags !== undefined ? expected.thinkTags : expected;
  expect(actual.reasoning, 'reasoning').toBe(text.reasoning);
  expect(actual.content, 'content').toBe(text.content);
  const finishReason = traits.ownFinishReasons && expected.finishReason !== 'length' ? (expected.toolCalls.length > 0 ? 'tool_calls' : 'stop') : expected.finishReason;
  expect(actual.finishReason, 'finishReason').toBe(finishReason);
  expect(actual.toolCalls.length, `toolCalls (${JSON.stringify(actual.toolCalls)})`).toBe(expected.toolCalls.length);
  expected.toolCalls.forEach((call, index) => {
    const got = actual.toolCalls[index]!;
    expect(got.name, `toolCalls[${index}].name`).toBe(call.name);
    expect(got.arguments, `toolCalls[${index}].arguments`).toBe(call.arguments);
    if (call.id !== undefined && !traits.ownToolCallIds) expect(got.id, `toolCalls[${index}].id`).toBe(call.id);
  });
  if (expected.usage !== undefined) {
    expect(actual.usage, 'usage').toBeDefined();
    for (const [key, value] of Object.entries(expected.usage)) {
      expect((actual.usage as unknown as Record<string, unknown>)[key], `usage.${key}`).toBe(value);
    }
  }
}
