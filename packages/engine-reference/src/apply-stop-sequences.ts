/**
 * Cuts `text` before the earliest occurrence of any stop sequence (empty ones are ignored).
 * `stopped` says whether one was found.
 *
 * @example
 * applyStopSequences('one two. three', ['.']); // { text: 'one two', stopped: true }
 * @internal
 */
export function applyStopSequences(text: string, stop: readonly string[] | undefined): { text: string; stopped: boolean } {
  let end = -1;
  for (const sequence of stop ?? []) {
    if (sequence === '') continue;
    const index = text.indexOf(sequence);
    if (index !== -1 && (end === -1 || index < end)) end = index;
  }
  return end === -1 ? { text, stopped: false } : { text: text.slice(0, end), stopped: true };
}
