/** How fast the usual size follows the prompts answered: about the last 20. */
const smoothing = 0.05;
/** A prompt this many times the usual is "far above" it. */
const farAbove = 4;
/** The least a timeout counts, however large its prompt. */
const leastWeight = 0.25;

/**
 * The usual prompt size of a model (a moving average of the prompt tokens of answered requests),
 * to weigh a timeout: a prompt far above the usual may simply take longer than the first-token
 * timeout to read, which says little of the deployment's health.
 *
 * @example
 * const usual = new UsualPromptSize();
 * usual.observe(120);
 * usual.timeoutWeight(4800); // 0.25
 */
export class UsualPromptSize {
  private usual: number | undefined;

  observe(promptTokens: number): void {
    this.usual = this.usual === undefined ? promptTokens : this.usual + (promptTokens - this.usual) * smoothing;
  }

  /** 1 for a prompt up to four times the usual size; less beyond, in proportion, down to a quarter. */
  timeoutWeight(promptTokens: number): number {
    const usual = this.usual;
    if (usual === undefined || promptTokens <= usual * farAbove) return 1;
    return Math.max(leastWeight, (usual * farAbove) / promptTokens);
  }
}
