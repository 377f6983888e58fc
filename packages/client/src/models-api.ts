import type { Model, ModelList } from '@quantum-chat/core';
import type { ClientConfig, RequestOptions } from './client-options.js';
import { APIResponseValidationError } from './errors/connection-errors.js';
import { requestJson } from './http/request-json.js';

/** `client.models`. */
export interface ModelsApi {
  /** `GET /models`: every model, with `requires_plan` (and `available` when a key was sent). */
  list(options?: RequestOptions): Promise<ModelList>;
  /** `GET /models/{id}`; an unknown id rejects with `NotFoundError` (`model_not_found`). */
  retrieve(id: string, options?: RequestOptions): Promise<Model>;
}

/** @internal */
export function createModelsApi(config: ClientConfig): ModelsApi {
  return {
    async list(options) {
      const { value, headers } = await requestJson(config, { method: 'GET', path: '/models', options });
      if (typeof value !== 'object' || value === null || !Array.isArray((value as { data?: unknown }).data)) {
        throw new APIResponseValidationError('The response is not a model list (no `data` array).', { headers, body: value });
      }
      return value as ModelList;
    },
    async retrieve(id, options) {
      const { value, headers } = await requestJson(config, { method: 'GET', path: `/models/${encodeURIComponent(id)}`, options });
      if (typeof value !== 'object' || value === null || typeof (value as { id?: unknown }).id !== 'string') {
        throw new APIResponseValidationError('The response is not a model (no `id`).', { headers, body: value });
      }
      return value as Model;
    },
  };
}
