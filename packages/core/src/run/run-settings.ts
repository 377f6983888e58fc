import type { AdmissionOutcome } from '../auth/access-control.js';
import type { ClientConnection } from '../contract/chat-http-types.js';
import type { ChatEngine, ChatEngineRequest } from '../engine/chat-engine.js';
import type { MeasuredPrompt } from '../engine/measured-prompt.js';
import type { GenerateId } from '../ids.js';
import type { StreamFormat } from '../wire/stream-frame-encoder.js';
import type { RunReport } from './run-report.js';

/** What one engine run needs: the engine and its request, the client, and how to settle. */
export interface RunSettings {
  engine: ChatEngine;
  request: ChatEngineRequest;
  /** The prompt as measured for the admission (its count remembered); measured when first needed otherwise. */
  prompt?: MeasuredPrompt | undefined;
  requestId: string;
  /**
   * The client's connection: watched only when needed (an engine reads its signal, or a
   * stream starts); the engine gets a signal of its own, aborted when the client goes or by
   * an early stop.
   */
  client: ClientConnection;
  /** Aborted when the server shuts down: open requests end with a `shutting_down` error. */
  shutdownSignal?: AbortSignal | undefined;
  generateId: GenerateId;
  /** The stream's completion id when drawn before the run (a resumable stream's id is its header); drawn at its start otherwise. */
  completionId?: string | undefined;
  createdSeconds: number;
  streamFormat: StreamFormat;
  includeUsage: boolean;
  keepAliveIntervalMs: number;
  /**
   * How long a stream may leave a frame unread, the consumer not pulling the next one (the
   * socket is full because the client stopped reading), before the core gives up on it.
   * 0 or less: never.
   */
  stallTimeoutMs?: number;
  /** Where the run reports its settlement and progress. */
  report: RunReport;
}

/** How a run ended: what settles the admission, and what observers are told besides. */
export interface RunOutcome extends AdmissionOutcome {
  /** The part of `completionTokens` spent on reasoning. */
  reasoningTokens: number;
  /** As sent on the wire; undefined when the engine did not finish. */
  finishReason: 'stop' | 'length' | 'tool_calls' | undefined;
}
