/** The longest function name the API accepts. */
const maxNameLength = 64;

/**
 * A function name the API accepts (`^[a-zA-Z0-9_-]{1,64}$`) for an MCP tool name, which may
 * hold dots, slashes, spaces or any Unicode. Characters outside the set become `_`; a name
 * already in `taken` gets `_2`, `_3`… (within 64 characters), so two tools never collide.
 *
 * @example
 * toFunctionName('files/read.text', new Set()); // 'files_read_text'
 * @internal
 */
export function toFunctionName(name: string, taken: ReadonlySet<string>, prefix = ''): string {
  const cleaned = (prefix + name).replace(/[^a-zA-Z0-9_-]/gu, '_').slice(0, maxNameLength) || 'tool';
  if (!taken.has(cleaned)) return cleaned;
  for (let suffix = 2; ; suffix++) {
    const tail = `_${suffix}`;
    const candidate = cleaned.slice(0, maxNameLength - tail.length) + tail;
    if (!taken.has(candidate)) return candidate;
  }
}
