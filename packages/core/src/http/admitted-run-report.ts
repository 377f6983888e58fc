import type { Admission } from '../auth/access-control.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import type { ChatRequestRecord, ChatRequestWatch } from '../run/chat-request-observer.js';
import type { RunProgress } from '../run/run-progress.js';
import type { RunReport } from '../run/run-report.js';
import type { RunOutcome } from '../run/run-settings.js';

/**
 * An admitted run's report: settles its admission and tells its watch (logs, metrics,
 * traces). A class: a waiting stream holds this one object rather than a closure per hook.
 */
export class AdmittedRunReport implements RunReport {
  readonly #watch: ChatRequestWatch;
  readonly #admission: Admission | undefined;
  readonly #api: ChatRequestRecord['api'];
  readonly #requestId: string;
  readonly #onSettleError: (error: unknown, requestId: string) => void;

  constructor(
    watch: ChatRequestWatch,
    admission: Admission | undefined,
    api: ChatRequestRecord['api'],
    requestId: string,
    onSettleError: (error: unknown, requestId: string) => void,
  ) {
    this.#watch = watch;
    this.#admission = admission;
    this.#api = api;
    this.#requestId = requestId;
    this.#onSettleError = onSettleError;
  }

  settled(outcome: RunOutcome): Promise<void> | undefined {
    const admission = this.#admission;
    const watch = this.#watch;
    // Usage records say which API a request came through.
    outcome.api = this.#api;
    const settling = admission?.settle(outcome);
    // A finished answer waits for a durable settle, whose failure becomes its own.
    if (admission?.settleBeforeAnswer === true && outcome.status === 200 && !outcome.interrupted && settling instanceof Promise) {
      return settling.then(
        () => watch.settle(outcome),
        (error: unknown) => {
          // A stream's status is sent already; a JSON answer becomes the error.
          watch.settle({ ...outcome, status: watch.stream ? outcome.status : QuantumChatError.isInstance(error) ? error.status : 500, interrupted: true });
          throw error;
        },
      );
    }
    watch.settle(outcome);
    void Promise.resolve(settling).catch((error: unknown) => this.#onSettleError(error, this.#requestId));
    return undefined;
  }

  track(progress: RunProgress): void {
    const admission = this.#admission;
    if (admission?.track !== undefined) admission.track(() => progress.outcome(200, false));
  }

  streamStarted(): void {
    this.#watch.streamStarted();
  }

  firstToken(): void {
    this.#watch.firstToken();
  }
}
