import { describe, expect, it } from 'vitest';
import * as host from './host.js';
import * as main from './index.js';
import * as schemas from './schemas.js';
import * as sse from './sse.js';

describe('the entries', () => {
  it('should give each value of /schemas, /sse and /host one home: the main entry re-lists none of them', () => {
    const main_ = new Set(Object.keys(main));
    for (const entry of [schemas, sse, host]) expect(Object.keys(entry).filter((name) => main_.has(name))).toEqual([]);
  });

  it('should keep every wire schema on /schemas', () => {
    expect(Object.keys(schemas).filter((name) => name.endsWith('Schema')).length).toBeGreaterThanOrEqual(25);
    expect(Object.keys(sse).sort()).toEqual(['SseDecoderStream', 'SseEventTooLongError', 'createSseDecoder', 'defaultMaxSseEventLength', 'encodeSseComment', 'encodeSseEvent']);
  });
});
