/** One Server-Sent Events frame: its `event:` name (if any) and its joined `data:` lines. */
export interface SseFrame {
  event: string | undefined;
  data: string;
}

/**
 * Splits a whole stream into frames (comments and keep-alives dropped). A test helper for
 * finished fixture bytes; the client has the incremental decoder.
 *
 * @example
 * parseSseFrames('event: message\ndata: {}\n\ndata: [DONE]\n\n'); // [{ event: 'message', data: '{}' }, { event: undefined, data: '[DONE]' }]
 */
export function parseSseFrames(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  for (const block of text.replace(/\r\n?/gu, '\n').split('\n\n')) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /u, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) frames.push({ event, data: data.join('\n') });
  }
  return frames;
}
