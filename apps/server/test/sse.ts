import { createSseDecoder, type SseEvent } from '@quantum-chat/core/sse';

/** Decodes a whole `text/event-stream` body into its events (comments are dropped). */
export function decodeSse(body: string): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = createSseDecoder({ onEvent: (event) => events.push(event) });
  decoder.feed(body);
  decoder.end();
  return events;
}

/** An open streaming response, read incrementally. */
export interface OpenStream {
  status: number;
  /** Resolves when the first bytes of the body arrived. */
  firstBytes: Promise<void>;
  /** Resolves with the whole body once the response ended (or the connection dropped). */
  body: Promise<string>;
  /** The body received so far. */
  text(): string;
}

/** POSTs a streaming chat request and reads its body as it arrives. */
export async function openStream(url: string, apiKey: string, body: Record<string, unknown>): Promise<OpenStream> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  let text = '';
  let markFirst: () => void = () => undefined;
  const firstBytes = new Promise<void>((resolve) => {
    markFirst = resolve;
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const whole = (async () => {
    try {
      for (let step = await reader.read(); !step.done; step = await reader.read()) {
        text += step.value;
        markFirst();
      }
    } catch {
      // A dropped connection ends the body too; the caller checks what arrived.
    }
    markFirst();
    return text;
  })();
  return { status: response.status, firstBytes, body: whole, text: () => text };
}
