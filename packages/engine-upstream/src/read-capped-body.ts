import { QuantumChatError } from '@quantum-chat/core';
import type { UpstreamBodyReader } from './upstream-transport.js';

/** The upstream fault of a body past `maxResponseBytes`. */
export function bodyTooLarge(maxBytes: number): QuantumChatError {
  return new QuantumChatError('upstream_error', `The model server sent more than ${maxBytes} bytes (decoded) for one answer.`);
}

/**
 * The text of a body, at most `maxBytes` of it: past that, `truncate` returns what came and
 * lets go of the rest; otherwise it is an upstream fault. The bytes are held as they came and
 * decoded once.
 */
export async function readCappedText(reader: UpstreamBodyReader | null, maxBytes: number, options: { truncate?: boolean } = {}): Promise<string> {
  if (reader === null) return '';
  if (reader.readText !== undefined) return reader.readText(maxBytes, options.truncate === true);
  const chunks: Uint8Array[] = [];
  let received = 0;
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      if (value === undefined) continue;
      const room = maxBytes - received;
      if (value.byteLength > room) {
        if (options.truncate !== true) throw bodyTooLarge(maxBytes);
        if (room > 0) chunks.push(value.subarray(0, room));
        received = maxBytes;
        break;
      }
      chunks.push(value);
      received += value.byteLength;
    }
  } finally {
    // A body left unread (too large, or failed) closes its connection.
    if (!finished) await reader.cancel().catch(() => undefined);
  }
  const decoder = new TextDecoder();
  let text = '';
  for (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}
