import { QuantumChatError } from '../errors/quantum-chat-error.js';
import { toErrorEnvelope } from '../errors/to-error-envelope.js';
import type { ErrorCode } from '../errors/error-codes.js';
import { dataFrame, eventField, frameOpening, retryField } from '../sse/sse-frame-builders.js';

/** What a resumable stream's first frame starts with: clients reconnect after a second (EventSource's own default is 3 s). */
export const resumeRetryField = retryField(1000);

const plainOpening = frameOpening('');
const errorOpening = frameOpening(eventField('error'));

/**
 * Splits encoded SSE text into its frames (each ends with a blank line; a JSON `data:` line
 * never holds a raw line break, so a blank line only ever ends a frame).
 */
export function splitFrames(text: string): string[] {
  const frames: string[] = [];
  let start = 0;
  for (let end = text.indexOf('\n\n'); end !== -1; end = text.indexOf('\n\n', start)) {
    frames.push(text.slice(start, end + 2));
    start = end + 2;
  }
  return frames;
}

/** The error frame of a stream of `kind`, in its wire format (the spec's `event: error`, or a bare `data:` for OpenAI's). */
export function encodeErrorFrame(kind: string, error: unknown): string {
  if (kind === 'responses') {
    // The Responses API's `error` event (decisions §10); the run's own frames carried the sequence numbers.
    const { code, message, param } = toErrorEnvelope(error).error;
    return dataFrame(errorOpening, JSON.stringify({ type: 'error', code, message, param }));
  }
  return dataFrame(kind.endsWith(':openai') ? plainOpening : errorOpening, JSON.stringify(toErrorEnvelope(error)));
}

/** A stream error of ours, as an error frame carries it. */
export function streamError(code: ErrorCode, message: string): QuantumChatError {
  return new QuantumChatError(code, message);
}
