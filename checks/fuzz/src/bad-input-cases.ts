/** One adversarial request and the answer decisions §1, §2 and §5 call for. */
export interface BadInputCase {
  name: string;
  headers?: Record<string, string>;
  /** Raw bytes, or text sent as UTF-8. */
  body: Uint8Array | string | undefined;
  expect: { status: number; code?: string; param?: string | null };
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const bytes = (...parts: Array<string | number[]>) => new Uint8Array(parts.flatMap((part) => (typeof part === 'string' ? [...utf8(part)] : part)));
const user = [{ role: 'user', content: 'Hello there' }];
const chat = (fields: Record<string, unknown> = {}) => JSON.stringify({ model: 'quantum-flash', messages: user, ...fields });
const tool = (name: string, parameters?: unknown) => ({ type: 'function', function: { name, ...(parameters === undefined ? {} : { parameters }) } });
const schemaCase = (name: string, parameters: unknown, expectStatus = 400): BadInputCase => ({
  name: `tool schema: ${name}`,
  body: chat({ tools: [tool('lookup', parameters)] }),
  expect: expectStatus === 400 ? { status: 400, code: 'invalid_tool_schema', param: 'tools[0].function.parameters' } : { status: expectStatus },
});
const invalid = (code: string, param: string | null, status = 400) => ({ status, code, param });

/** A body of `depth` nested arrays: 10,000 levels is 20 KB. */
export const deeplyNested = (depth: number) => `{"model":"quantum-flash","messages":${'['.repeat(depth)}${']'.repeat(depth)}}`;

function nestedSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 0; level < levels; level++) schema = { type: 'object', properties: { child: schema } };
  return schema;
}

export const badInputCases: BadInputCase[] = [
  // Body: JSON, size, type, encoding, depth, keys (decisions §2).
  { name: 'malformed JSON', body: '{"model":', expect: invalid('invalid_json', null) },
  { name: 'truncated JSON', body: chat().slice(0, 30), expect: invalid('invalid_json', null) },
  { name: 'trailing garbage', body: `${chat()}}`, expect: invalid('invalid_json', null) },
  { name: 'single quotes', body: "{'model':'quantum-flash'}", expect: invalid('invalid_json', null) },
  { name: 'empty body', body: undefined, expect: invalid('invalid_json', null) },
  { name: 'whitespace body', body: ' \n\t ', expect: invalid('invalid_json', null) },
  { name: 'top-level array', body: '[]', expect: invalid('invalid_type', null) },
  { name: 'top-level string', body: '"hello"', expect: invalid('invalid_type', null) },
  { name: 'top-level number', body: '42', expect: invalid('invalid_type', null) },
  { name: 'top-level null', body: 'null', expect: invalid('invalid_type', null) },
  { name: 'top-level true', body: 'true', expect: invalid('invalid_type', null) },
  { name: 'huge number literal', body: '1e999999', expect: invalid('invalid_type', null) },
  { name: 'text/plain', headers: { 'content-type': 'text/plain' }, body: chat(), expect: invalid('unsupported_media_type', null, 415) },
  { name: 'form encoded', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'model=quantum-flash', expect: invalid('unsupported_media_type', null, 415) },
  { name: 'multipart', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--', expect: invalid('unsupported_media_type', null, 415) },
  { name: 'no content-type', headers: { 'content-type': '' }, body: chat(), expect: invalid('unsupported_media_type', null, 415) },
  { name: 'malformed content-type', headers: { 'content-type': 'application/json, text/plain' }, body: chat(), expect: invalid('unsupported_media_type', null, 415) },
  { name: 'content-type without subtype', headers: { 'content-type': '/' }, body: chat(), expect: invalid('unsupported_media_type', null, 415) },
  { name: 'oversized body (1 MiB + 1)', body: chat({ padding: 'x'.repeat(1024 * 1024) }), expect: invalid('request_too_large', null, 413) },
  { name: 'oversized body with a malformed content-type', headers: { 'content-type': '/' }, body: chat({ padding: 'x'.repeat(1024 * 1024) }), expect: invalid('request_too_large', null, 413) },
  { name: '20 KB nested 10,000 levels', body: deeplyNested(10_000), expect: invalid('nesting_too_deep', null) },
  { name: 'objects nested 5,000 levels', body: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, expect: invalid('nesting_too_deep', null) },
  { name: 'nested 65 levels in a field', body: chat({ metadata: JSON.parse(deeplyNested(0).replace('{"model":"quantum-flash","messages":}', '{}')), extra: JSON.parse(`${'['.repeat(64)}${']'.repeat(64)}`) }), expect: invalid('nesting_too_deep', null) },
  { name: '__proto__ at the top', body: `{"__proto__":{"admin":true},${chat().slice(1)}`, expect: invalid('invalid_json', null) },
  { name: '__proto__ in a message', body: JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: 'x' }] }).replace('"role"', '"__proto__":{"x":1},"role"'), expect: invalid('invalid_json', null) },
  { name: 'constructor.prototype', body: chat({ constructor: { prototype: { admin: true } } }), expect: invalid('invalid_json', null) },
  { name: 'invalid UTF-8 byte', body: bytes('{"model":"quantum-flash","messages":[{"role":"user","content":"', [0xff, 0xfe], '"}]}'), expect: invalid('invalid_encoding', null) },
  { name: 'lone surrogate as raw bytes', body: bytes('{"model":"quantum-flash","messages":[{"role":"user","content":"', [0xed, 0xa0, 0x80], '"}]}'), expect: invalid('invalid_encoding', null) },
  { name: 'overlong encoding', body: bytes('{"model":"quantum-flash","messages":[{"role":"user","content":"', [0xc0, 0xaf], '"}]}'), expect: invalid('invalid_encoding', null) },
  { name: 'truncated multibyte character', body: bytes('{"model":"quantum-flash","messages":[{"role":"user","content":"', [0xe2, 0x82], '"}]}'), expect: invalid('invalid_encoding', null) },
  // Authentication comes after the body, before validation (decisions §1).
  { name: 'no Authorization', headers: { authorization: '' }, body: chat(), expect: invalid('missing_api_key', null, 401) },
  { name: 'Basic Authorization', headers: { authorization: 'Basic dXNlcjpwYXNz' }, body: chat(), expect: invalid('invalid_api_key', null, 401) },
  { name: 'malformed key', headers: { authorization: 'Bearer qc_test_notavalidkey' }, body: chat(), expect: invalid('invalid_api_key', null, 401) },
  { name: 'two tokens', headers: { authorization: 'Bearer a b' }, body: chat(), expect: invalid('invalid_api_key', null, 401) },
  { name: 'latin-1 bytes in Authorization', headers: { authorization: 'Bearer \u00e9\u00ff' }, body: chat(), expect: invalid('invalid_api_key', null, 401) },
  // Validation: every field, named in `param` (decisions §2).
  { name: 'model missing', body: JSON.stringify({ messages: user }), expect: invalid('missing_required_parameter', 'model') },
  { name: 'model a number', body: chat({ model: 42 }), expect: invalid('invalid_type', 'model') },
  { name: 'model unknown', body: chat({ model: 'gpt-9' }), expect: invalid('model_not_found', 'model', 404) },
  { name: 'messages missing', body: JSON.stringify({ model: 'quantum-flash' }), expect: invalid('missing_required_parameter', 'messages') },
  { name: 'messages an object', body: chat({ messages: {} }), expect: invalid('invalid_type', 'messages') },
  { name: 'messages empty', body: chat({ messages: [] }), expect: invalid('invalid_value', 'messages') },
  { name: 'message a string', body: chat({ messages: ['hi'] }), expect: invalid('invalid_type', 'messages[0]') },
  { name: 'role missing', body: chat({ messages: [{ content: 'hi' }] }), expect: invalid('missing_required_parameter', 'messages[0].role') },
  { name: 'bad role', body: chat({ messages: [{ role: 'robot', content: 'hi' }] }), expect: invalid('invalid_value', 'messages[0].role') },
  { name: 'role a number', body: chat({ messages: [{ role: 1, content: 'hi' }] }), expect: invalid('invalid_value', 'messages[0].role') },
  { name: 'content a number', body: chat({ messages: [{ role: 'user', content: 5 }] }), expect: invalid('invalid_type', 'messages[0].content') },
  { name: 'content missing', body: chat({ messages: [{ role: 'user' }] }), expect: invalid('missing_required_parameter', 'messages[0].content') },
  { name: 'image part', body: chat({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] }), expect: invalid('unsupported_value', 'messages[0].content[0].type') },
  { name: 'text part without text', body: chat({ messages: [{ role: 'user', content: [{ type: 'text' }] }] }), expect: invalid('invalid_value', 'messages[0].content') },
  { name: 'assistant without content or tool calls', body: chat({ messages: [...user, { role: 'assistant' }] }), expect: invalid('missing_required_parameter', 'messages[1]') },
  { name: 'orphan tool message', body: chat({ messages: [...user, { role: 'tool', tool_call_id: 'call_1', content: 'x' }] }), expect: invalid('invalid_value', 'messages[1].tool_call_id') },
  { name: 'tool message without id', body: chat({ messages: [...user, { role: 'tool', content: 'x' }] }), expect: invalid('missing_required_parameter', 'messages[1].tool_call_id') },
  { name: 'tool_calls not an array', body: chat({ messages: [...user, { role: 'assistant', content: null, tool_calls: {} }] }), expect: invalid('invalid_type', 'messages[1].tool_calls') },
  { name: 'temperature a string', body: chat({ temperature: 'hot' }), expect: invalid('invalid_type', 'temperature') },
  { name: 'temperature too high', body: chat({ temperature: 2.5 }), expect: invalid('invalid_value', 'temperature') },
  { name: 'temperature negative', body: chat({ temperature: -0.1 }), expect: invalid('invalid_value', 'temperature') },
  { name: 'max_tokens 0', body: chat({ max_tokens: 0 }), expect: invalid('invalid_value', 'max_tokens') },
  { name: 'max_tokens too high', body: chat({ max_tokens: 8193 }), expect: invalid('invalid_value', 'max_tokens') },
  { name: 'max_tokens a fraction', body: chat({ max_tokens: 1.5 }), expect: invalid('invalid_type', 'max_tokens') },
  { name: 'max_tokens 1e308', body: chat({ max_tokens: 1e308 }), expect: invalid('invalid_value', 'max_tokens') },
  { name: 'max_completion_tokens differs', body: chat({ max_tokens: 10, max_completion_tokens: 20 }), expect: invalid('invalid_value', 'max_completion_tokens') },
  { name: 'top_p too high', body: chat({ top_p: 1.5 }), expect: invalid('invalid_value', 'top_p') },
  { name: 'stop five strings', body: chat({ stop: ['a', 'b', 'c', 'd', 'e'] }), expect: invalid('invalid_value', 'stop') },
  { name: 'stop a number', body: chat({ stop: 5 }), expect: invalid('invalid_type', 'stop') },
  { name: 'seed a fraction', body: chat({ seed: 0.5 }), expect: invalid('invalid_type', 'seed') },
  { name: 'seed beyond 2^53', body: chat({ seed: 2 ** 60 }), expect: invalid('invalid_value', 'seed') },
  { name: 'user too long', body: chat({ user: 'u'.repeat(300) }), expect: invalid('invalid_value', 'user') },
  { name: 'metadata 17 entries', body: chat({ metadata: Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v'])) }), expect: invalid('invalid_value', 'metadata') },
  { name: 'metadata value a number', body: chat({ metadata: { a: 1 } }), expect: invalid('invalid_type', 'metadata.a') },
  { name: 'n = 2', body: chat({ n: 2 }), expect: invalid('unsupported_value', 'n') },
  { name: 'stream a string', body: chat({ stream: 'yes' }), expect: invalid('invalid_type', 'stream') },
  { name: 'include_usage a string', body: chat({ stream: true, stream_options: { include_usage: 'yes' } }), expect: invalid('invalid_type', 'stream_options.include_usage') },
  { name: 'parallel_tool_calls a string', body: chat({ parallel_tool_calls: 'no' }), expect: invalid('invalid_type', 'parallel_tool_calls') },
  { name: 'tools an object', body: chat({ tools: {} }), expect: invalid('invalid_type', 'tools') },
  { name: 'tool of another type', body: chat({ tools: [{ type: 'retrieval', function: { name: 'x' } }] }), expect: invalid('invalid_value', 'tools[0].type') },
  { name: 'tool name with a space', body: chat({ tools: [tool('look up')] }), expect: invalid('invalid_value', 'tools[0].function.name') },
  { name: 'duplicate tool names', body: chat({ tools: [tool('a'), tool('a')] }), expect: invalid('invalid_value', 'tools[1].function.name') },
  { name: '129 tools', body: chat({ tools: Array.from({ length: 129 }, (_, index) => tool(`t${index}`)) }), expect: invalid('invalid_value', 'tools') },
  { name: 'tool_choice unknown word', body: chat({ tools: [tool('a')], tool_choice: 'sometimes' }), expect: invalid('invalid_value', 'tool_choice') },
  { name: 'tool_choice names a missing tool', body: chat({ tools: [tool('a')], tool_choice: { type: 'function', function: { name: 'b' } } }), expect: invalid('invalid_value', 'tool_choice') },
  { name: 'tool_choice required without tools', body: chat({ tool_choice: 'required' }), expect: invalid('invalid_value', 'tool_choice') },
  // Tool schemas (decisions §2): refused with invalid_tool_schema, never fetched, never stalling.
  schemaCase('remote $ref (https)', { type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } }),
  schemaCase('remote $ref (cloud metadata)', { type: 'object', properties: { a: { $ref: 'http://169.254.169.254/latest/meta-data/' } } }),
  schemaCase('relative file $ref', { type: 'object', properties: { a: { $ref: 'definitions.json#/a' } } }),
  schemaCase('not an object root', { type: 'array', items: {} }),
  schemaCase('misspelt type', { type: 'object', properties: { a: { type: 'strng' } } }),
  schemaCase('unknown $schema', { $schema: 'https://example.com/my-meta', type: 'object' }),
  // Catastrophic for a backtracking engine, linear for RE2, which runs every pattern from a request.
  schemaCase('catastrophic pattern (a+)+$ (accepted)', { type: 'object', properties: { a: { type: 'string', pattern: '(a+)+$' } } }, 200),
  schemaCase('catastrophic pattern (a|a)*$ (accepted)', { type: 'object', properties: { a: { type: 'string', pattern: '^(a|a)*$' } } }, 200),
  schemaCase('catastrophic patternProperties key (accepted)', { type: 'object', patternProperties: { '^(\\w+\\s?)*$': { type: 'string' } } }, 200),
  schemaCase('pattern with a backreference', { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)\\1$' } } }),
  schemaCase('patternProperties key with a lookahead', { type: 'object', patternProperties: { '^(?=x)': { type: 'string' } } }),
  schemaCase('definitions doubling through allOf', {
    type: 'object',
    properties: { a: { $ref: '#/definitions/d20' } },
    definitions: Object.fromEntries(Array.from({ length: 21 }, (_, level) => [`d${level}`, level === 0 ? { type: 'string' } : { allOf: [{ $ref: `#/definitions/d${level - 1}` }, { $ref: `#/definitions/d${level - 1}` }] }])),
  }),
  schemaCase('invalid regex', { type: 'object', properties: { a: { type: 'string', pattern: '([a-z' } } }),
  schemaCase('huge enum (300,000 values)', { type: 'object', properties: { a: { enum: Array.from({ length: 300_000 }, () => 0) } } }),
  schemaCase('more than 10,000 values', { type: 'object', properties: Object.fromEntries(Array.from({ length: 6000 }, (_, index) => [`p${index}`, { type: 'string' }])) }),
  { name: 'tool schema: parameters an array', body: chat({ tools: [tool('lookup', [])] }), expect: invalid('invalid_type', 'tools[0].function.parameters') },
  schemaCase('a local $ref cycle (accepted)', { type: 'object', properties: { a: { $ref: '#/definitions/b' } }, definitions: { b: { $ref: '#/definitions/c' }, c: { $ref: '#/definitions/b' } } }, 200),
  schemaCase('nested 28 levels (accepted)', nestedSchema(28), 200),
  // Accepted oddities: unknown fields are ignored and named, lone surrogates escaped in JSON are text.
  { name: 'unknown fields named in non-ASCII and control characters', body: chat({ 'naïve': 1, 'a\r\nb': 2, '𑰧': 3 }), expect: { status: 200 } },
  { name: 'unknown fields', body: chat({ frobnicate: { deeply: [1, 2, { x: null }] }, logit_bias: { 1: 2 } }), expect: { status: 200 } },
  { name: 'escaped lone surrogate', body: chat({ messages: [{ role: 'user', content: 'half \\ud800 a pair' }] }).replace('\\\\ud800', '\\ud800'), expect: { status: 200 } },
  { name: 'BOM before the JSON', body: bytes([0xef, 0xbb, 0xbf], chat()), expect: { status: 200 } },
  { name: 'emoji, RTL and zero-width text', body: chat({ messages: [{ role: 'user', content: '👩‍👩‍👧 \u202e\u200b\u0000 مرحبا' }] }), expect: { status: 200 } },
  { name: 'null for every optional field', body: chat({ temperature: null, max_tokens: null, stop: null, tools: null, tool_choice: null, stream: null, user: null, seed: null }), expect: { status: 200 } },
];
