import type { ClientConfig } from '../client-options.js';
import { APIResponseValidationError } from '../errors/connection-errors.js';
import { sendRequest, toTransportError, type ApiRequest } from './send-request.js';

/**
 * Sends a request expecting JSON and reads the whole body within the timeout. A body that is
 * not JSON rejects with `APIResponseValidationError`.
 *
 * @internal
 */
export async function requestJson(config: ClientConfig, request: Omit<ApiRequest, 'accept'>): Promise<{ value: unknown; headers: Record<string, string> }> {
  const { response, headers, attempt } = await sendRequest(config, { ...request, accept: 'application/json' });
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw toTransportError(error, attempt);
  } finally {
    attempt.dispose();
  }
  try {
    return { value: JSON.parse(text), headers };
  } catch (error) {
    throw new APIResponseValidationError(`The response is not JSON: ${text.slice(0, 200)}`, { cause: error, headers, status: response.status });
  }
}
