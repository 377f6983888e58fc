import { isErrorCode } from '@quantum-chat/core';
import * as z from 'zod';
import { replayEventSchema, type ReplayEvent } from './fixture-schemas.js';

/**
 * Parses the text of a `.engine.jsonl` file: one event per line, blank lines skipped. An
 * `error` event must name a wire error code of the core's table.
 */
export function parseEngineScript(text: string, source = 'engine script'): ReplayEvent[] {
  const events: ReplayEvent[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${source}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new Error(`${where}: not valid JSON (${(error as Error).message})`);
    }
    const parsed = replayEventSchema.safeParse(value);
    if (!parsed.success) throw new Error(`${where}: ${z.prettifyError(parsed.error)}`);
    if (parsed.data.type === 'error' && !isErrorCode(parsed.data.code)) throw new Error(`${where}: unknown error code '${parsed.data.code}'`);
    events.push(parsed.data);
  });
  return events;
}
