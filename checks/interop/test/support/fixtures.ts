import type { FormatId } from './compat-recorder.js';

/** The four built-in models (spec §2.1); the server's first-start key is `elite`, so all four answer. */
export const models = ['quantum-lite', 'quantum-flash', 'quantum-reasoner', 'quantum-pro'] as const;
export type ModelId = (typeof models)[number];

/** A stream format as a client reaches it: a base path and extra headers. */
export interface StreamFormat {
  id: Exclude<FormatId, 'any'>;
  /** For test names and the README. */
  label: string;
  path: '/v1' | '/compat/v1';
  headers: Record<string, string>;
}

/** decisions.md §4: the spec's format at `/v1`; the OpenAI format by path or by header. */
export const streamFormats: readonly StreamFormat[] = [
  { id: 'quantum', label: '/v1 (quantum format)', path: '/v1', headers: {} },
  { id: 'openai-path', label: '/compat/v1 (OpenAI format)', path: '/compat/v1', headers: {} },
  { id: 'openai-header', label: '/v1 + x-stream-format: openai', path: '/v1', headers: { 'x-stream-format': 'openai' } },
];

export const question = 'What is 12 * 7? Answer briefly.';

/** A question the reference engine answers with a `get_weather` call when the tool is offered. */
export const weatherQuestion = 'What is the weather in Paris today?';

const weatherParameters = {
  type: 'object',
  properties: { city: { type: 'string', description: 'The city name' } },
  required: ['city'],
  additionalProperties: false,
} as const;

/** The OpenAI wire shape of the tool, as the openai SDK takes it. */
export const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Get the current weather for a city', parameters: weatherParameters },
};

export const weatherResult = JSON.stringify({ city: 'Paris', temperature_c: 18, sky: 'cloudy' });

/** What a plain `fetch` of a non-streaming answer says: the oracle every client is held to. */
export interface ReferenceAnswer {
  content: string;
  reasoning: string | undefined;
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; completion_tokens_details?: { reasoning_tokens?: number } };
}

/**
 * Asks the server directly (no SDK) for the non-streaming answer to `body`. The reference
 * engine's output is a pure function of the request (decisions §8), so every client, streamed
 * or not, must rebuild exactly this.
 *
 * @example
 * const expected = await fetchReferenceAnswer(origin, key, { model: 'quantum-lite', messages });
 */
export async function fetchReferenceAnswer(origin: string, apiKey: string, body: Record<string, unknown>): Promise<ReferenceAnswer> {
  const response = await fetch(`${origin}/compat/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: false }),
  });
  if (response.status !== 200) throw new Error(`Reference request failed: ${response.status} ${await response.text()}`);
  const completion = (await response.json()) as {
    choices: { message: { content: string | null; reasoning_content?: string }; finish_reason: string }[];
    usage: ReferenceAnswer['usage'];
  };
  const choice = completion.choices[0]!;
  return { content: choice.message.content ?? '', reasoning: choice.message.reasoning_content, finishReason: choice.finish_reason, usage: completion.usage };
}
