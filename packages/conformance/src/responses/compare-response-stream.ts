import { expect } from 'vitest';
import { keyOrder } from '../compare-json-body.js';
import { readResponseStream } from './response-stream-rules.js';

/**
 * Checks a received Responses stream: first against the rules of decisions §10 (named events,
 * `type`, `sequence_number` 0, 1, 2, …, the order of events, no `[DONE]`), then event by event
 * against the expected stream (the same names, the same JSON, key order included). Ids and
 * times need no masking: every case runs with sequential ids and a fixed clock.
 */
export function assertResponseStream(actualText: string, expectedText: string): void {
  const actual = readResponseStream(actualText);
  expect(actual.problems, 'the stream keeps the rules of a Responses stream (decisions §10)').toEqual([]);
  const expected = readResponseStream(expectedText);
  expect(
    actual.events.map((event) => event.name),
    'the events, in order',
  ).toEqual(expected.events.map((event) => event.name));
  expected.events.forEach((event, index) => {
    const received = actual.events[index]!;
    expect(received.data, `event ${index} (${event.name})`).toEqual(event.data);
    expect(keyOrder(received.data), `event ${index} (${event.name}): key order`).toEqual(keyOrder(event.data));
  });
}
