import type { ChatEngineEvent } from '../../engine/chat-engine.js';
import { toErrorEnvelope } from '../../errors/to-error-envelope.js';
import type { ResponseObject } from '../../schemas/responses/response-object.js';
import { createResponseEventEncoder } from './response-event-encoder.js';
import { runToFinish } from '../run-to-completion.js';
import type { RunSettings } from '../run-settings.js';
import type { RunFramer } from '../stream-run-frames.js';
import type { GenerateResponseId } from './response-ids.js';
import { ResponseOutput } from './response-output.js';
import type { ResponseShell, ResponseState } from './response-shell.js';

/** What a Responses API run adds to the chat run it is: the response's settings, its ids, its clock. */
export interface ResponseRunOptions {
  shell: ResponseShell;
  generateId: GenerateResponseId;
  /** Whether the model shows its reasoning (`quantum-reasoner`). */
  showReasoning: boolean;
  showLogprobs: boolean;
  /** Seconds since the epoch, for `completed_at`. */
  nowSeconds: () => number;
  /**
   * The response as it ended (completed, incomplete or failed), before a stream's last event
   * goes out: a promise holds that event back (the store keeps the response first).
   */
  onFinal?: (response: ResponseObject) => void | Promise<void>;
  /** A stream that ended without a final state (cancelled, or stopped at its time limit): the response as it stood, `cancelled`. */
  onStopped?: (response: ResponseObject) => void;
}

/**
 * Runs the engine to its finish (the JSON path; settled as chat settles): the response's final
 * state, which `shell.body` writes and, for a stored response, `shell.build` makes the object of.
 */
export async function runResponseToCompletion(settings: RunSettings, options: ResponseRunOptions): Promise<ResponseState> {
  const output = new ResponseOutput({ generateId: options.generateId, showReasoning: options.showReasoning, showLogprobs: options.showLogprobs });
  const finish = await runToFinish(settings, { add: (event) => output.observe(event) });
  output.observe(finish);
  return output.finalState(options.nowSeconds());
}

/**
 * The Responses API's frames for a run's stream (decisions §10): `response.created` and
 * `response.in_progress` before the first event's, the encoder's events after, and a failure
 * after the first byte as an `error` event then `response.failed`.
 */
export function responseFramer(options: ResponseRunOptions): () => RunFramer {
  return () => {
    const encoder = createResponseEventEncoder(options.shell, {
      generateId: options.generateId,
      showReasoning: options.showReasoning,
      showLogprobs: options.showLogprobs,
      now: options.nowSeconds,
    });
    let opened = false;
    /** The last event's frames, encoded early so that the response it ends with can be stored before they go out. */
    let lastFrames: string | undefined;
    const opening = (): string => {
      if (opened) return '';
      opened = true;
      return encoder.start();
    };
    return {
      framesOf(event: ChatEngineEvent): string {
        if (event.type === 'finish' && lastFrames !== undefined) return opening() + lastFrames;
        return opening() + encoder.encode(event);
      },
      beforeLast(event: ChatEngineEvent): void | Promise<void> {
        lastFrames = encoder.encode(event);
        return options.onFinal?.(encoder.response()!);
      },
      ended(): void {
        if (encoder.ended() || options.onStopped === undefined) return;
        encoder.fail({ code: 'cancelled', message: 'The response was cancelled.', param: null });
        options.onStopped({ ...encoder.response()!, status: 'cancelled', error: null });
      },
      failure(error: unknown): string {
        const { code, message, param } = toErrorEnvelope(error).error;
        const frames = opening() + encoder.fail({ code: code ?? 'internal_error', message, param: param ?? null });
        void Promise.resolve(options.onFinal?.(encoder.response()!)).catch(() => undefined);
        return frames;
      },
    };
  };
}
