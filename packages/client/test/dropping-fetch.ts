import type { FetchFunction } from '../src/index.js';

/**
 * A fetch whose stream responses drop after `cutAfterBytes` bytes, the first `drops` times: as
 * a network change does, the connection is closed (the server sees its client leave) and the
 * reader gets an error (`'error'`) or a clean early end (`'end'`).
 */
export function droppingFetch(drops: number, cutAfterBytes: number, how: 'error' | 'end'): { fetch: FetchFunction; dropped: () => number; requests: string[] } {
  let dropped = 0;
  const requests: string[] = [];
  const dropping: FetchFunction = async (input, init) => {
    const headers = new Headers(init.headers);
    const url = new URL(input);
    requests.push(`${init.method ?? 'GET'} ${url.pathname}${url.search} ${headers.get('last-event-id') ?? '-'}`);
    const response = await fetch(input, init);
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || dropped >= drops || response.body === null) return response;
    dropped++;
    const reader = response.body.getReader();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        const room = cutAfterBytes - sent;
        if (value.byteLength < room) {
          sent += value.byteLength;
          return controller.enqueue(value);
        }
        if (room > 0) controller.enqueue(value.subarray(0, room));
        await reader.cancel();
        if (how === 'error') controller.error(new TypeError('terminated'));
        else controller.close();
      },
      cancel: () => reader.cancel(),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: dropping, dropped: () => dropped, requests };
}
