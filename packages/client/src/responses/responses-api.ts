import type { ResponseObject } from '@quantum-chat/core/dialect';
import type { ClientConfig, RequestOptions } from '../client-options.js';
import { APIResponseValidationError } from '../errors/connection-errors.js';
import { requestJson } from '../http/request-json.js';
import { sendRequest } from '../http/send-request.js';
import { readResponseObject } from './read-response-object.js';
import type { InputItemsPage, ResponseCreateParams, ResponseDeleted, ResponseInputItemList } from './response-params.js';
import { createResponseStream, type ResponseStream, type ResponseStreamResumer } from './response-stream.js';

/** `client.responses`: the Responses API, with the errors, retries and options of chat calls. */
export interface ResponsesApi {
  /** `POST /responses` with `stream: false`: the whole `Response` (with `background: true`, a `queued` one). */
  create(params: ResponseCreateParams, options?: RequestOptions): Promise<ResponseObject>;
  /** `POST /responses` with `stream: true`: typed events, or `finalResponse()`. A dropped background stream resumes on its own. */
  stream(params: ResponseCreateParams, options?: RequestOptions): ResponseStream;
  /**
   * `GET /responses/{id}?stream=true&starting_after=N`: replays a stored streamed response's
   * events after `startingAfter` (absent: from the start) and follows it to its end.
   */
  resume(responseId: string, resumeOptions?: { startingAfter?: number } & RequestOptions): ResponseStream;
  /** `GET /responses/{id}`: a stored response as it is now; another organisation's or a deleted one is `NotFoundError`. */
  retrieve(responseId: string, options?: RequestOptions): Promise<ResponseObject>;
  /** `DELETE /responses/{id}`. */
  delete(responseId: string, options?: RequestOptions): Promise<ResponseDeleted>;
  /** `POST /responses/{id}/cancel`: stops a background response; answers it, `cancelled`. */
  cancel(responseId: string, options?: RequestOptions): Promise<ResponseObject>;
  inputItems: {
    /** `GET /responses/{id}/input_items`: one page of the items the response was made from. */
    list(responseId: string, page?: InputItemsPage, options?: RequestOptions): Promise<ResponseInputItemList>;
  };
}

const responsePath = (responseId: string) => `/responses/${encodeURIComponent(responseId)}`;

/** `?stream=true&starting_after=N` (N left out when absent). */
function replayQuery(startingAfter: number | undefined): string {
  return startingAfter === undefined ? '?stream=true' : `?stream=true&starting_after=${startingAfter}`;
}

function pageQuery(page: InputItemsPage): string {
  const query = new URLSearchParams();
  if (page.after !== undefined) query.set('after', page.after);
  if (page.limit !== undefined) query.set('limit', String(page.limit));
  if (page.order !== undefined) query.set('order', page.order);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** @internal */
export function createResponsesApi(config: ClientConfig): ResponsesApi {
  /** Re-opens from the last event seen; the caller's signal and headers apply, retries are the resumer's own. */
  const resumer = (requestOptions: RequestOptions | undefined): ResponseStreamResumer => ({
    maxAttempts: config.maxResumeAttempts,
    sleep: config.sleep,
    onResume: requestOptions?.onResume,
    open: (responseId, startingAfter, signal) =>
      sendRequest(config, { method: 'GET', path: responsePath(responseId) + replayQuery(startingAfter), accept: 'text/event-stream', options: { ...requestOptions, signal, maxRetries: 0 } }),
  });

  return {
    async create(params, requestOptions) {
      const body = { ...params, stream: false };
      const { value, headers } = await requestJson(config, { method: 'POST', path: '/responses', body, options: requestOptions });
      return readResponseObject(value, headers);
    },
    stream(params, requestOptions) {
      const body = { ...params, stream: true };
      return createResponseStream(
        (signal) => sendRequest(config, { method: 'POST', path: '/responses', body, accept: 'text/event-stream', options: { ...requestOptions, signal } }),
        requestOptions?.signal,
        resumer(requestOptions),
      );
    },
    resume(responseId, resumeOptions = {}) {
      const { startingAfter, ...requestOptions } = resumeOptions;
      return createResponseStream(
        (signal) => sendRequest(config, { method: 'GET', path: responsePath(responseId) + replayQuery(startingAfter), accept: 'text/event-stream', options: { ...requestOptions, signal } }),
        requestOptions.signal,
        resumer(requestOptions),
        { responseId, startingAfter },
      );
    },
    async retrieve(responseId, requestOptions) {
      const { value, headers } = await requestJson(config, { method: 'GET', path: responsePath(responseId), options: requestOptions });
      return readResponseObject(value, headers);
    },
    async delete(responseId, requestOptions) {
      const { value, headers } = await requestJson(config, { method: 'DELETE', path: responsePath(responseId), options: requestOptions });
      if (typeof value !== 'object' || value === null || (value as { deleted?: unknown }).deleted !== true) {
        throw new APIResponseValidationError('The response is not a deletion (no `deleted: true`).', { headers, body: value });
      }
      return value as ResponseDeleted;
    },
    async cancel(responseId, requestOptions) {
      const { value, headers } = await requestJson(config, { method: 'POST', path: `${responsePath(responseId)}/cancel`, options: requestOptions });
      return readResponseObject(value, headers);
    },
    inputItems: {
      async list(responseId, page = {}, requestOptions) {
        const { value, headers } = await requestJson(config, { method: 'GET', path: `${responsePath(responseId)}/input_items${pageQuery(page)}`, options: requestOptions });
        if (typeof value !== 'object' || value === null || !Array.isArray((value as { data?: unknown }).data)) {
          throw new APIResponseValidationError('The response is not a list of input items (no `data` array).', { headers, body: value });
        }
        return value as ResponseInputItemList;
      },
    },
  };
}
