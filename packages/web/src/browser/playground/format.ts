import type { Usage } from '@quantum-chat/client';

/** Tool-call arguments (a JSON string on the wire) pretty-printed; text that is not JSON stays as it is. */
export function formatArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** `12 prompt + 80 completion tokens (64 reasoning)`. */
export function formatUsage(usage: Usage): string {
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return `${usage.prompt_tokens} prompt + ${usage.completion_tokens} completion tokens${reasoning ? ` (${reasoning} reasoning)` : ''}`;
}
