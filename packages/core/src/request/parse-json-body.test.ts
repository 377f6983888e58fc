import { describe, expect, it } from 'vitest';
import { parseJsonBody } from './parse-json-body.js';

const forbidden = expect.objectContaining({ code: 'invalid_json', status: 400 });

describe('parseJsonBody', () => {
  it('refuses a __proto__ key, written plainly or with \\u escapes', () => {
    expect(() => parseJsonBody('{"a":{"__proto__":{"x":1}}}')).toThrow(forbidden);
    expect(() => parseJsonBody('{"a":[{"\\u005f_proto__":{"x":1}}]}')).toThrow(forbidden);
    expect(() => parseJsonBody('{"\\u005F\\u005Fproto\\u005F\\u005F":1}')).toThrow(forbidden);
  });

  it('refuses constructor.prototype, escaped or not', () => {
    expect(() => parseJsonBody('{"constructor":{"prototype":{"x":1}}}')).toThrow(forbidden);
    expect(() => parseJsonBody('{"constructor":{"\\u0070rototype":{"x":1}}}')).toThrow(forbidden);
  });

  it('parses bodies that only mention those words in values', () => {
    expect(parseJsonBody('{"content":"what is __proto__ and a prototype?","x":"caf\\u00e9"}')).toEqual({
      content: 'what is __proto__ and a prototype?',
      x: 'café',
    });
  });
});
