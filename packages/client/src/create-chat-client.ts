import type { ChatCompletion } from '@quantum-chat/core';
import type { ChatCompletionCreateParams } from './chat-request.js';
import type { ChatClientOptions, ClientConfig, RequestOptions } from './client-options.js';
import { requestJson } from './http/request-json.js';
import { sendRequest } from './http/send-request.js';
import { defaultSleep } from './http/sleep.js';
import { createModelsApi, type ModelsApi } from './models-api.js';
import { readChatCompletion } from './read-chat-completion.js';
import { createChatCompletionStream, type ChatCompletionStream } from './stream/chat-completion-stream.js';

/** What {@link createChatClient} returns. */
export interface ChatClient {
  chat: {
    completions: {
      /** `POST /chat/completions` with `stream: false`: the whole completion. */
      create(request: ChatCompletionCreateParams, options?: RequestOptions): Promise<ChatCompletion>;
      /** `POST /chat/completions` with `stream: true`: typed events, or `collect()` for the whole message. */
      stream(request: ChatCompletionCreateParams, options?: RequestOptions): ChatCompletionStream;
    };
  };
  models: ModelsApi;
}

/** Ten minutes, as in the `openai` SDK: long answers from slow models are normal. */
const defaultTimeoutMs = 10 * 60 * 1000;
const defaultMaxRetries = 2;

/**
 * Creates a client of the chat-completions API over `fetch`: typed calls, streams in both
 * formats (and other OpenAI-style servers' dialects), errors as classes, and retries before
 * the first byte. Runs in Node ≥ 20, browsers, Deno, Bun and workers.
 *
 * @example
 * const client = createChatClient({ baseUrl: 'http://127.0.0.1:3000/v1', apiKey: process.env.QC_API_KEY });
 * const completion = await client.chat.completions.create({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Hi' }] });
 * console.log(completion.choices[0]?.message.content);
 */
export function createChatClient(options: ChatClientOptions): ChatClient {
  const globalFetch = globalThis.fetch as ClientConfig['fetch'] | undefined;
  const fetchFunction = options.fetch ?? (globalFetch === undefined ? undefined : (input: string, init: RequestInit) => globalFetch(input, init));
  if (fetchFunction === undefined) throw new TypeError('No fetch: pass `fetch` to createChatClient on runtimes without a global one.');
  // Fail here, not as a retried connection error on the first call.
  new URL(options.baseUrl);
  const config: ClientConfig = {
    baseUrl: options.baseUrl.replace(/\/+$/u, ''),
    apiKey: options.apiKey,
    fetch: fetchFunction,
    timeout: options.timeout ?? defaultTimeoutMs,
    maxRetries: options.maxRetries ?? defaultMaxRetries,
    defaultHeaders: options.defaultHeaders ?? {},
    streamFormat: options.streamFormat,
    sleep: options.sleep ?? defaultSleep,
  };

  return {
    chat: {
      completions: {
        async create(request, requestOptions) {
          const body = { ...request, stream: false };
          const { value, headers } = await requestJson(config, { method: 'POST', path: '/chat/completions', body, options: requestOptions });
          return readChatCompletion(value, headers);
        },
        stream(request, requestOptions) {
          const body = { ...request, stream: true };
          return createChatCompletionStream(
            (signal) => sendRequest(config, { method: 'POST', path: '/chat/completions', body, accept: 'text/event-stream', options: { ...requestOptions, signal } }),
            requestOptions?.signal,
          );
        },
      },
    },
    models: createModelsApi(config),
  };
}
