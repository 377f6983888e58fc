import type { ChatCompletion } from '@quantum-chat/core';
import { findReasoning, readErrorPayload } from '@quantum-chat/core/dialect';
import { APIResponseValidationError } from './errors/connection-errors.js';
import { createApiError } from './errors/create-api-error.js';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks that a 2xx body is a chat completion and returns it as sent, extra fields included.
 * The check is structural (an object whose `choices` each have a `message`), not the strict
 * schema our server is tested against, so that Ollama, vLLM or llama.cpp answers pass too.
 * Reasoning sent as `message.reasoning` is also exposed as `reasoning_content` (the core's
 * `findReasoning`). A 200 that holds an error payload (any shape of `readErrorPayload`)
 * throws that error.
 *
 * @internal
 */
export function readChatCompletion(body: unknown, headers: Record<string, string>): ChatCompletion {
  if (isObject(body) && body.choices === undefined && readErrorPayload(body) !== undefined) {
    throw createApiError(undefined, body, headers);
  }
  if (!isObject(body) || !Array.isArray(body.choices) || !body.choices.every((choice) => isObject(choice) && isObject(choice.message))) {
    throw new APIResponseValidationError('The response is not a chat completion (no `choices[].message`).', { headers, body });
  }
  for (const choice of body.choices as JsonObject[]) {
    const message = choice.message as JsonObject;
    const reasoning = findReasoning(message);
    if (reasoning !== undefined) message.reasoning_content = reasoning;
    if (message.content === undefined) message.content = null;
  }
  return body as unknown as ChatCompletion;
}
