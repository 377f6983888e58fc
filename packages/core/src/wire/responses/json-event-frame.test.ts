import { describe, expect, it } from 'vitest';
import { encodeSseEvent } from '../../sse/encode-sse-event.js';
import { jsonEventHead, sequencedTail } from './json-event-frame.js';

describe('jsonEventHead and sequencedTail', () => {
  it('write the frame encodeSseEvent writes for the same event', () => {
    const json = JSON.stringify({ type: 'response.output_text.delta', delta: 'a\nb\r\n"c"' });
    const frame = jsonEventHead('response.output_text.delta') + json.slice(0, -1) + sequencedTail(7);
    expect(frame).toBe(encodeSseEvent({ event: 'response.output_text.delta', data: `${json.slice(0, -1)},"sequence_number":7}` }));
  });
});
