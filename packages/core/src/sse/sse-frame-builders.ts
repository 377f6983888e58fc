// The frame builders every SSE writer of the core shares: the public `encodeSseEvent` and
// `encodeSseComment`, and the stream frame encoder on the hot path (`wire/`). They check
// nothing: a caller passes a type, id or line already known to hold no CR or LF (the checking
// writers test it; `JSON.stringify` never emits a raw line break).

/** `event: <type>\n`: the field naming a frame's event type, part of a frame's head. */
export function eventField(type: string): string {
  return 'event: ' + type + '\n';
}

/** `id: <id>\n`: the field setting the last event id, part of a frame's head. */
export function idField(id: string): string {
  return 'id: ' + id + '\n';
}

/** `retry: <ms>\n`: the field setting the reconnection time, part of a frame's head. */
export function retryField(milliseconds: number): string {
  return 'retry: ' + String(milliseconds) + '\n';
}

/**
 * The start of a frame: its head (`eventField`, `idField`, `retryField` lines, or '') and the
 * `data: ` of its data line. A writer builds it once per kind of frame, so each frame of the
 * hot path costs one concatenation (`dataFrame`).
 */
export function frameOpening(head: string): string {
  return head + 'data: ';
}

/** A whole frame: its opening (`frameOpening`), one data line, and the blank line that dispatches it. */
export function dataFrame(opening: string, line: string): string {
  return opening + line + '\n\n';
}

/** A comment frame of one line, which every decoder skips (the keep-alive). */
export function commentFrame(line: string): string {
  return ': ' + line + '\n\n';
}

// One scan for any SSE line break; used only when text is known to contain CR or LF.
const lineBreak = /\r\n|\r|\n/;

/** `prefix + line + '\n'` for each line of `text` (CRLF, CR or LF), closed by the blank line. */
export function multiLineFrame(head: string, prefix: string, text: string): string {
  let out = head;
  for (const line of text.split(lineBreak)) out += prefix + line + '\n';
  return out + '\n';
}

/** Whether `text` holds CR or LF, which a single field line cannot carry. */
export function hasLineBreak(text: string): boolean {
  return text.indexOf('\n') !== -1 || text.indexOf('\r') !== -1;
}
