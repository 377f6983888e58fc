import type { ServerResponse } from 'node:http';
import type { ChatEngineEvent } from '@quantum-chat/core';
import { createResponseEventEncoder, createResponseShell, createSequentialResponseIdGenerator, validateCreateResponse, type ResponseStreamError } from '@quantum-chat/core/responses';
import { writeRepeated } from './hostile-upstream.js';
import { pause, sseHeaders, startUpstreamServer, type UpstreamRequestRecord, type UpstreamServer } from './start-upstream-server.js';

/** How the stand-in runtime answers one Responses request. */
export type ResponsesAnswer =
  /** A stream of the events the core's encoder writes for these engine events (what a runtime generated), one write each. */
  | { kind: 'stream'; events: Iterable<ChatEngineEvent>; failWith?: ResponseStreamError; pauseMs?: number }
  /** The same response as one JSON body (a runtime that ignored `stream: true`). */
  | { kind: 'json'; events: Iterable<ChatEngineEvent> }
  /** An HTTP error with an OpenAI-style JSON body. */
  | { kind: 'status'; status: number; message: string; headers?: Record<string, string> }
  /** A stream whose first event's `data:` line never ends (`mib` MiB of it, then the connection closes). */
  | { kind: 'endless-event'; mib: number };

const mebibyte = 1024 * 1024;

/** The encoder of a request as our own server would build it: the body must be a valid Responses request. */
function encoderFor(record: UpstreamRequestRecord) {
  const request = validateCreateResponse(record.body);
  const shell = createResponseShell(request, { id: 'resp_upstream', createdAt: 1_767_225_600, model: request.model });
  return createResponseEventEncoder(shell, {
    generateId: createSequentialResponseIdGenerator(),
    showReasoning: true,
    showLogprobs: request.logprobs !== undefined,
    now: () => 1_767_225_601,
  });
}

/** Writes `text`, waiting for the socket to drain; false once the client went away. */
async function write(response: ServerResponse, text: string): Promise<boolean> {
  if (response.destroyed || response.writableEnded) return false;
  if (response.write(text)) return true;
  // Listeners removed once either comes: a long stream waits for many drains.
  return new Promise((resolve) => {
    const settle = (open: boolean) => {
      response.off('drain', onDrain);
      response.off('close', onClose);
      resolve(open);
    };
    const onDrain = () => settle(true);
    const onClose = () => settle(false);
    response.on('drain', onDrain);
    response.on('close', onClose);
  });
}

async function answer(response: ServerResponse, record: UpstreamRequestRecord, reply: ResponsesAnswer): Promise<void> {
  switch (reply.kind) {
    case 'status': {
      response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      response.end(JSON.stringify({ error: { message: reply.message, type: 'server_error', param: null, code: null } }));
      return;
    }
    case 'json': {
      const encoder = encoderFor(record);
      encoder.start();
      for (const event of reply.events) encoder.encode(event);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(encoder.response()));
      return;
    }
    case 'endless-event': {
      response.writeHead(200, sseHeaders);
      response.write('event: response.output_text.delta\ndata: {"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"');
      await writeRepeated(response, Buffer.alloc(mebibyte, 'x'), reply.mib);
      response.destroy();
      return;
    }
    case 'stream': {
      const encoder = encoderFor(record);
      response.writeHead(200, sseHeaders);
      if (!(await write(response, encoder.start()))) return;
      for (const event of reply.events) {
        if (!(await write(response, encoder.encode(event)))) return;
        if (reply.pauseMs !== undefined) await pause(reply.pauseMs);
      }
      if (reply.failWith !== undefined) await write(response, encoder.fail(reply.failWith));
      if (!response.destroyed) response.end();
      return;
    }
  }
}

/**
 * A real node:http server on 127.0.0.1 that serves `POST /v1/responses` as a runtime with the
 * Responses API does (vLLM, Ollama): it reads the request with our own validator (so what the
 * engine sends must be a valid Responses request) and writes the events the core's Responses
 * encoder makes of the engine events `reply` gives, with backpressure. Any other path is 404.
 *
 * @example
 * const upstream = await startResponsesUpstream(() => ({ kind: 'stream', events: [{ type: 'content', text: 'Hi' }, finish] }));
 */
export function startResponsesUpstream(reply: (record: UpstreamRequestRecord) => ResponsesAnswer): Promise<UpstreamServer> {
  return startUpstreamServer(async (_request, response, record) => {
    if (record.url !== '/v1/responses') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `no route ${record.url}` } }));
      return;
    }
    try {
      validateCreateResponse(record.body);
    } catch (error) {
      // What we send must be a request a Responses server takes: say why it is not.
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: (error as Error).message } }));
      return;
    }
    await answer(response, record, reply(record));
  });
}
