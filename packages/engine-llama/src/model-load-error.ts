/**
 * Why a model file cannot be served, in one sentence for the operator (the server prints
 * `message` and exits; no stack trace).
 */
export class ModelLoadError extends Error {
  override readonly name = 'ModelLoadError';
  constructor(
    message: string,
    readonly reason: 'missing' | 'not-gguf' | 'unknown-architecture' | 'too-large' | 'no-runtime' | 'unreachable' | 'failed',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
