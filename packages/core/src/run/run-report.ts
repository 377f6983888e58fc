import type { RunProgress } from './run-progress.js';
import type { RunOutcome } from './run-settings.js';

/**
 * What a run tells the rest of its request as it goes: settlement, the tokens produced so far,
 * a stream's start and its first token. One object per request whose methods are shared: a
 * waiting stream holds it, not a closure (and a context) per hook.
 */
export interface RunReport {
  /**
   * Called once with how the request ended, to settle quota and log. A promise: the answer is
   * acknowledged only once it resolves (a durable usage row); for a finished request the last
   * bytes wait for it, and its rejection fails the answer.
   */
  settled(outcome: RunOutcome): void | Promise<void>;
  /** The engine started: an admission that tracks running requests gets a reader of `progress` (see `Admission.track`). */
  track(progress: RunProgress): void;
  /** A stream's engine produced its first event: its frames follow. */
  streamStarted(): void;
  /** A stream's first token frame was handed to the host's writer. */
  firstToken(): void;
}
