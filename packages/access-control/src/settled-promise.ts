/**
 * One settled promise for every step that has nothing to wait for (a memory refund, a settle
 * with no difference): returning it allocates nothing, and callers can tell it apart.
 *
 * @internal
 */
export const nothingToWait: Promise<void> = Promise.resolve();
