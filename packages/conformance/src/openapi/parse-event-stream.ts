/**
 * One event of a `text/event-stream` body as OpenAPI 3.2 models it: the fields the HTML
 * standard's parser keeps, `retry` as a number, the others as strings. A field that the event
 * did not carry is absent (no default `message` name is filled in).
 */
export interface EventStreamItem {
  event?: string;
  data: string;
  id?: string;
  retry?: number;
}

/**
 * Parses a whole stream the way the HTML standard does ("Parsing an event stream"): lines end
 * with CRLF, LF or CR; a line starting with `:` is a comment; a field's value loses one leading
 * space; `data` lines are joined with `\n`; a blank line dispatches the event, unless its data
 * is empty; `retry` counts only when it is all digits; unknown fields are ignored; an event
 * not ended by a blank line is dropped. For checking finished bodies against a document.
 *
 * @example
 * parseEventStream('event: message\ndata: {}\n\n: keep-alive\n\ndata: [DONE]\n\n'); // [{ event: 'message', data: '{}' }, { data: '[DONE]' }]
 */
export function parseEventStream(text: string): EventStreamItem[] {
  const items: EventStreamItem[] = [];
  let event: string | undefined;
  let data: string[] = [];
  let id: string | undefined;
  let retry: number | undefined;
  const lines = text.replace(/^\uFEFF/u, '').split(/\r\n|\n|\r/u);
  // The text after the last line break is an unfinished line, never dispatched.
  lines.pop();
  for (const line of lines) {
    if (line === '') {
      if (data.length > 0) {
        items.push({ ...(event !== undefined && event !== '' ? { event } : {}), data: data.join('\n'), ...(id !== undefined ? { id } : {}), ...(retry !== undefined ? { retry } : {}) });
      }
      event = undefined;
      data = [];
      id = undefined;
      retry = undefined;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /u, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'retry' && /^\d+$/u.test(value)) retry = Number(value);
  }
  return items;
}
