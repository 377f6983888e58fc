import type { ChatEngineEvent } from '../../engine/chat-engine.js';
import type { ResponseObject } from '../../schemas/responses/response-object.js';
import { ResponseOutput, type ResponseOutputOptions } from './response-output.js';
import type { ResponseShell } from './response-shell.js';

/**
 * The `Response` of a finished non-streaming run, from the engine events the run collected
 * (the JSON path; the stream encoder builds the same object as it goes).
 */
export function buildResponse(
  shell: ResponseShell,
  events: Iterable<ChatEngineEvent>,
  options: Omit<ResponseOutputOptions, 'sink'> & { completedAt: number },
): ResponseObject {
  const output = new ResponseOutput(options);
  for (const event of events) output.observe(event);
  return shell.build(output.finalState(options.completedAt));
}
