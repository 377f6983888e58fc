import { createChatHandler, type ChatHandler } from '@quantum-chat/core';
import { createCaseHandlerOptions } from './case-handler-options.js';
import type { CaseFile, ReplayEvent } from './fixture-schemas.js';
import { createReplayEngine, type ReplayEngine } from './replay-engine.js';

/** What a host in another runtime needs of a case to build its handler: no request, no expected bytes. */
export interface PortableCase {
  id: string;
  handler: CaseFile['handler'];
  engineEvents: ReplayEvent[] | undefined;
  /** An SSE case: its engine holds the last event until the reader saw the first frame. */
  streaming: boolean;
}

export interface CaseRouterOptions {
  /** How long a streaming case's engine holds its last event waiting for the first frame; 2000 ms by default. */
  holdTimeoutMs?: number;
}

const casePath = /^\/cases\/([a-z0-9-]+\/[a-z0-9-]+)(\/.*)?$/;

/**
 * A fetch handler serving many cases at once, for hosts in other JavaScript runtimes (workerd,
 * Bun, Deno), where the runner cannot hand a handler its options:
 *
 * - `/cases/<id>/v1/…`: the case's own handler (`handler.fetch`), built on first use from the
 *   case's options with a replay engine;
 * - `POST /cases/<id>/first-frame`: the reader saw the first bytes;
 * - `GET /cases/<id>/engine`: `{ calls, firstFrameBeforeLastEvent }` of that engine.
 *
 * Imports nothing from `node:`; each case is meant to be requested once.
 */
export function createCaseRouter(cases: readonly PortableCase[], options: CaseRouterOptions = {}): (request: Request) => Promise<Response> {
  const byId = new Map(cases.map((testCase) => [testCase.id, testCase]));
  const running = new Map<string, { handler: ChatHandler; engine: ReplayEngine }>();
  const runningCase = (testCase: PortableCase) => {
    let entry = running.get(testCase.id);
    if (entry === undefined) {
      const engine = createReplayEngine(testCase.engineEvents, {
        holdLastEvent: testCase.streaming,
        ...(options.holdTimeoutMs !== undefined ? { holdTimeoutMs: options.holdTimeoutMs } : {}),
      });
      entry = { engine, handler: createChatHandler(createCaseHandlerOptions({ handler: testCase.handler }, engine)) };
      running.set(testCase.id, entry);
    }
    return entry;
  };
  return async (request) => {
    const match = casePath.exec(new URL(request.url).pathname);
    const testCase = match === null ? undefined : byId.get(match[1]!);
    if (testCase === undefined) return new Response('no such case\n', { status: 404 });
    const { handler, engine } = runningCase(testCase);
    const rest = match![2] ?? '/';
    if (rest === '/first-frame') {
      engine.markFirstFrame();
      return new Response(null, { status: 204 });
    }
    if (rest === '/engine') return Response.json({ calls: engine.requests.length, firstFrameBeforeLastEvent: engine.firstFrameBeforeLastEvent ?? null });
    // The handler's fetch face finds its mount point (`/cases/<id>/v1`) in the path itself.
    return handler.fetch(request);
  };
}
