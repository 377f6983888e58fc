import type { ChatCompletion } from '@quantum-chat/core';
import type { ChatCompletionCreateParams } from './chat-request.js';
import type { ChatClientOptions, ClientConfig, RequestOptions } from './client-options.js';
import { requestJson } from './http/request-json.js';
import { sendRequest } from './http/send-request.js';
import { defaultSleep } from './http/sleep.js';
import { createModelsApi, type ModelsApi } from './models-api.js';
import { readChatCompletion } from './read-chat-completion.js';
import { createResponsesApi, type ResponsesApi } from './responses/responses-api.js';
import { createChatCompletionStream, type ChatCompletionStream, type StreamResumer } from './stream/chat-completion-stream.js';

/** What `cancel` answers: the stream's status once asked to stop. */
export interface StreamStatus {
  id: string;
  object: 'chat.completion.stream';
  status: 'cancelled' | 'completed' | 'failed';
}

/** What {@link createChatClient} returns. */
export interface ChatClient {
  chat: {
    completions: {
      /** `POST /chat/completions` with `stream: false`: the whole completion. */
      create(request: ChatCompletionCreateParams, options?: RequestOptions): Promise<ChatCompletion>;
      /** `POST /chat/completions` with `stream: true`: typed events, or `collect()` for the whole message. */
      stream(request: ChatCompletionCreateParams, options?: RequestOptions): ChatCompletionStream;
      /**
       * Re-opens a resumable stream by its id (`stream.streamId`), from after the frame `after`
       * (0 or absent: from the start), and follows it to its end; it resumes on its own too.
       */
      resume(streamId: string, resumeOptions?: { after?: number | string } & RequestOptions): ChatCompletionStream;
      /** `GET /chat/completions/{id}`: a finished resumable stream as a whole completion (409 while it runs). */
      retrieve(streamId: string, options?: RequestOptions): Promise<ChatCompletion>;
      /** `POST /chat/completions/{id}/cancel`: stops a resumable stream's generation (idempotent). */
      cancel(streamId: string, options?: RequestOptions): Promise<StreamStatus>;
    };
  };
  /** The Responses API (`POST /responses` and the routes of stored responses). */
  responses: ResponsesApi;
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
    maxResumeAttempts: Math.max(0, options.maxResumeAttempts ?? 3),
  };
  const streamPath = (streamId: string) => `/chat/completions/${encodeURIComponent(streamId)}`;
  /** Re-opens with `Last-Event-ID`; the caller's signal and headers apply, retries are the resumer's own. */
  const resumer = (requestOptions: RequestOptions | undefined): StreamResumer => ({
    maxAttempts: config.maxResumeAttempts,
    sleep: config.sleep,
    onResume: requestOptions?.onResume,
    open: (streamId, lastEventId, signal) =>
      sendRequest(config, {
        method: 'GET',
        path: `${streamPath(streamId)}/stream`,
        accept: 'text/event-stream',
        options: { ...requestOptions, signal, maxRetries: 0, headers: { ...requestOptions?.headers, ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) } },
      }),
  });

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
            resumer(requestOptions),
          );
        },
        resume(streamId, resumeOptions = {}) {
          const { after, ...requestOptions } = resumeOptions;
          const from = after === undefined ? undefined : String(after);
          return createChatCompletionStream(
            (signal) =>
              sendRequest(config, {
                method: 'GET',
                path: `${streamPath(streamId)}/stream`,
                accept: 'text/event-stream',
                options: { ...requestOptions, signal, headers: { ...requestOptions.headers, ...(from !== undefined ? { 'last-event-id': from } : {}) } },
              }),
            requestOptions.signal,
            resumer(requestOptions),
            from,
          );
        },
        async retrieve(streamId, requestOptions) {
          const { value, headers } = await requestJson(config, { method: 'GET', path: streamPath(streamId), options: requestOptions });
          return readChatCompletion(value, headers);
        },
        async cancel(streamId, requestOptions) {
          const { value } = await requestJson(config, { method: 'POST', path: `${streamPath(streamId)}/cancel`, options: requestOptions });
          return value as StreamStatus;
        },
      },
    },
    responses: createResponsesApi(config),
    models: createModelsApi(config),
  };
}
