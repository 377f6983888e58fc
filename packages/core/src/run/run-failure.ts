import { clientClosedStatus } from '../contract/client-connection.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import type { RunSettings } from './run-settings.js';

export function engineEndedEarly(): QuantumChatError {
  return new QuantumChatError('upstream_error', 'The model stopped without finishing its answer.');
}

/**
 * The status a failed run is settled with: `client_closed` (499) when the client had left
 * (whatever its aborted engine threw), else the error's (500 for an unknown one).
 */
export function failureStatus(settings: RunSettings, error: unknown): number {
  if (settings.client.closed) return clientClosedStatus;
  return QuantumChatError.isInstance(error) ? error.status : 500;
}

/** What a failure becomes: a server shutdown outranks whatever the aborted engine threw. */
export function explainFailure(settings: RunSettings, error: unknown): unknown {
  if (settings.shutdownSignal?.aborted && !settings.client.closed) {
    return new QuantumChatError('shutting_down', 'The server is shutting down; retry the request.', { cause: error });
  }
  return error;
}
