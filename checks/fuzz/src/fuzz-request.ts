import { generateApiKey } from '@quantum-chat/core';
import fc from 'fast-check';

/** One generated request: exact bytes and headers, sent identically to every host. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  /** How it was made, for the report of a failing case. */
  recipe: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const encoder = new TextEncoder();
const testKey = generateApiKey('test');
const liveKey = generateApiKey('live');

// Sentinels, replaced in the JSON text by what JSON.stringify cannot write.
const rawLiterals: Record<string, string> = {
  '"§HUGE§"': '1e999999',
  '"§NEGHUGE§"': '-1e999999',
  '"§TINY§"': '1e-400',
  '"§LONGINT§"': '123456789012345678901234567890',
  '"§NEGZERO§"': '-0',
};
const rawKeys: Record<string, string> = { '"§PROTO§"': '"__proto__"', '"§CTOR§"': '"constructor"' };

// ---------------------------------------------------------------- text and values

const edgeStrings = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff',
  '\ud83d\ude00',
  '👩‍👩‍👧',
  '\u202eevil\u202c',
  '\u200b\ufeff',
  'مرحبا بالعالم',
  '日本語のテキスト',
  '<|endoftext|>',
  '__proto__',
  'constructor',
  'prototype',
  '\r\n\r\n',
  '\n\ndata: [DONE]\n\n',
  'event: error\ndata: {}\n\n',
  '"}]}',
  '\\u0000',
  '%s%d%n',
  '${process.exit()}',
  'What is 12 * 7?',
  'Search the web for the weather in Paris',
  'a'.repeat(300),
  '😀'.repeat(4000),
  'x'.repeat(20_000),
];

const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 3, arbitrary: fc.constantFrom(...edgeStrings) },
);

/** Values of every JSON type, the wrong one for most fields. */
const anyValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, false, 0, -1, 1, 1.5, -0.5, 2, 3, 8192, 8193, 1e308, -1e308, 2 ** 53 + 2, '', '1', 'true', 'null', [], [[]], {}, { a: 1 }),
  fc.constantFrom('§HUGE§', '§NEGHUGE§', '§TINY§', '§LONGINT§', '§NEGZERO§'),
  text,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.array(fc.oneof(fc.integer(), text), { maxLength: 6 }),
  fc.dictionary(text, fc.oneof(fc.integer(), text), { maxKeys: 4 }),
  fc.constantFrom<Json>(Array.from({ length: 300 }, () => 0), Array.from({ length: 40 }, () => ({})), Array.from({ length: 6 }, () => 's')),
);

// ---------------------------------------------------------------- a mostly valid request

const toolName = fc.stringMatching(/^[a-zA-Z0-9_-]{1,12}$/);

const goodSchemas: Json[] = [
  { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  { type: 'object', properties: { query: { type: 'string', minLength: 1 }, limit: { type: 'integer', minimum: 1, maximum: 10 } } },
  { type: 'object', properties: { unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } } },
  { type: 'object', properties: { items: { type: 'array', items: { type: 'string' }, maxItems: 3 } } },
  { type: 'object', properties: { node: { $ref: '#/definitions/node' } }, definitions: { node: { type: 'object', properties: { next: { $ref: '#/definitions/node' } } } } },
  { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } }, additionalProperties: false },
  {},
];

/** Tool schemas that must be refused (or are odd but fine): decisions §2, and schemas known to stall a naive engine. */
const badSchemas: Json[] = [
  { type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } },
  { type: 'object', properties: { a: { $ref: 'http://169.254.169.254/latest/meta-data/' } } },
  { type: 'object', properties: { a: { $ref: 'file:///etc/passwd' } } },
  { $ref: 'other.json' },
  { type: 'array' },
  { type: 'strng' },
  { type: 'object', properties: { a: { type: 'string', pattern: '(a+)+$' } } },
  { type: 'object', properties: { a: { type: 'string', pattern: '^(a)\\1$' } } },
  { type: 'object', properties: { a: { type: 'string', pattern: '^[a-z]*[a-z]*[a-z]*!$', minLength: 4000 } }, required: ['a'] },
  { type: 'object', properties: { a: { type: 'string', pattern: '^(a|aa)*$' } } },
  { type: 'object', patternProperties: { '(x*)*y': {} } },
  { type: 'object', properties: { a: { type: 'string', pattern: '[' } } },
  { type: 'object', properties: { a: { enum: [] } } },
  { type: 'object', properties: { a: { enum: Array.from({ length: 1200 }, (_, index) => index) } } },
  { type: 'object', required: 'a' },
  { type: 'object', properties: { a: { minLength: -1 } } },
  { $schema: 'http://example.com/schema' },
  { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', $defs: { a: { $ref: '#/$defs/a' } } },
  { type: 'object', properties: { a: { $ref: '#' } } },
  { type: 'object', definitions: { a: { $ref: '#/definitions/b' }, b: { $ref: '#/definitions/a' } } },
  // Valid, but heavy for an engine that generates arguments (the reference engine used to stall on these).
  { type: 'object', properties: { left: { $ref: '#' }, right: { $ref: '#' } }, required: ['left', 'right'] },
  { type: 'object', properties: { grid: { type: 'array', minItems: 64, items: { type: 'array', minItems: 64, items: { type: 'array', minItems: 64, items: { type: 'string' } } } } }, required: ['grid'] },
  { type: 'object', properties: { code: { type: 'string', minLength: 100_000, pattern: '\\w+!' } }, required: ['code'] },
];

const tool = fc.record({
  type: fc.constant('function'),
  function: fc.record(
    {
      name: toolName,
      description: text,
      parameters: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...goodSchemas) }, { weight: 1, arbitrary: fc.constantFrom(...badSchemas) }),
      strict: fc.boolean(),
    },
    { requiredKeys: ['name'] },
  ),
});

const plainMessage = fc.oneof(
  fc.record({ role: fc.constantFrom('user', 'system', 'developer'), content: text }),
  fc.record({ role: fc.constant('user'), content: fc.array(fc.record({ type: fc.constant('text'), text }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ role: fc.constant('assistant'), content: text }, { requiredKeys: ['role'] }).map((message) => ({ content: 'ok', ...message })),
  fc.record({ role: fc.constant('assistant'), content: text, reasoning_content: text }),
);

/** An assistant tool call and its answer, consistent with each other. */
const toolExchange = fc.tuple(toolName, fc.stringMatching(/^call_[A-Za-z0-9]{4,24}$/), text).map(([name, id, result]) => [
  { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: '{}' } }] },
  { role: 'tool', tool_call_id: id, content: result },
]);

const messages = fc
  .tuple(fc.array(plainMessage, { maxLength: 3 }), fc.option(toolExchange, { nil: undefined }), fc.record({ role: fc.constant('user'), content: text }))
  .map(([before, exchange, last]) => [...before, ...(exchange ?? []), last] as Json[]);

const validRequest: fc.Arbitrary<{ [key: string]: Json }> = fc
  .record(
    {
      model: fc.constantFrom('quantum-flash', 'quantum-lite', 'quantum-reasoner', 'quantum-pro'),
      messages,
      stream: fc.boolean(),
      temperature: fc.double({ min: 0, max: 2, noNaN: true }),
      max_tokens: fc.integer({ min: 1, max: 48 }),
      top_p: fc.double({ min: 0, max: 1, noNaN: true }),
      stop: fc.oneof(text, fc.array(text, { maxLength: 4 })),
      seed: fc.integer(),
      user: fc.string({ maxLength: 20 }),
      metadata: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 4 }),
      n: fc.constant(1),
      parallel_tool_calls: fc.boolean(),
      stream_options: fc.record({ include_usage: fc.boolean() }),
      tools: fc.uniqueArray(tool, { maxLength: 3, selector: (entry) => entry.function.name }),
    },
    { requiredKeys: ['model', 'messages'] },
  )
  .chain((request) => {
    const names = (request.tools ?? []).map((entry) => entry.function.name);
    const choices: Array<fc.Arbitrary<Json>> = [fc.constantFrom('none', 'auto')];
    if (names.length > 0) choices.push(fc.constant('required'), fc.constantFrom(...names).map((name) => ({ type: 'function', function: { name } })));
    return fc.option(fc.oneof(...choices), { nil: undefined }).map((choice) => (choice === undefined ? request : { ...request, tool_choice: choice }) as { [key: string]: Json });
  });

// ---------------------------------------------------------------- structural mutations

/** Every path in a JSON value, breadth first, capped so huge values stay cheap. */
function pathsOf(value: Json): Array<Array<string | number>> {
  const paths: Array<Array<string | number>> = [];
  const queue: Array<[Json, Array<string | number>]> = [[value, []]];
  while (queue.length > 0 && paths.length < 400) {
    const [node, path] = queue.shift()!;
    if (path.length > 0) paths.push(path);
    if (Array.isArray(node)) node.slice(0, 20).forEach((child, index) => queue.push([child, [...path, index]]));
    else if (node !== null && typeof node === 'object') for (const [key, child] of Object.entries(node)) queue.push([child, [...path, key]]);
  }
  return paths;
}

function updateAt(value: Json, path: Array<string | number>, update: (parent: Json[] | { [key: string]: Json }, key: string | number) => void): Json {
  const copy = structuredClone(value);
  let parent: Json = copy;
  for (const segment of path.slice(0, -1)) parent = (parent as Record<string | number, Json>)[segment] as Json;
  update(parent as { [key: string]: Json }, path[path.length - 1]!);
  return copy;
}

type Mutation = (value: { [key: string]: Json }) => fc.Arbitrary<[Json, string]>;

const replaceSomewhere: Mutation = (value) => {
  const paths = pathsOf(value);
  return fc.tuple(fc.nat(paths.length - 1), anyValue).map(([index, replacement]) => {
    const path = paths[index]!;
    return [updateAt(value, path, (parent, key) => ((parent as Record<string | number, Json>)[key] = replacement)), `replace ${path.join('.')}`];
  });
};

const deleteSomewhere: Mutation = (value) => {
  const paths = pathsOf(value);
  return fc.nat(paths.length - 1).map((index) => {
    const path = paths[index]!;
    return [
      updateAt(value, path, (parent, key) => {
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete parent[key as string];
      }),
      `delete ${path.join('.')}`,
    ];
  });
};

/** Unknown fields, `__proto__` and `constructor.prototype`, at the top or inside an object. */
const addKeys: Mutation = (value) => {
  const objects = [[], ...pathsOf(value)].filter((path) => {
    let node: Json = value;
    for (const segment of path) node = (node as Record<string | number, Json>)[segment] as Json;
    return node !== null && typeof node === 'object' && !Array.isArray(node);
  });
  const key = fc.oneof(text, fc.constantFrom('§PROTO§', '§CTOR§', 'prototype', 'logit_bias', 'response_format', 'functions', 'toString', 'hasOwnProperty'));
  const entry = fc.tuple(key, fc.oneof(anyValue, fc.constant<Json>({ prototype: { polluted: true } })));
  return fc.tuple(fc.nat(objects.length - 1), fc.array(entry, { minLength: 1, maxLength: 3 })).map(([index, entries]) => {
    const path = objects[index]!;
    const copy = structuredClone(value) as Json;
    let node = copy;
    for (const segment of path) node = (node as Record<string | number, Json>)[segment] as Json;
    for (const [name, child] of entries) (node as { [key: string]: Json })[name] = child;
    return [copy, `add ${entries.map(([name]) => name).join(',')} at ${path.join('.') || 'top'}`];
  });
};

/** Protocol-level mistakes: bad roles, orphan tool messages, refused schemas, too many items. */
const protocolMistake: Mutation = (value) =>
  fc.oneof(
    fc.constantFrom('robot', 'function', 'USER', '', 'tool').map((role) => [{ ...value, messages: [{ role, content: 'hi' }] }, `role ${role}`] as [Json, string]),
    fc.constant<[Json, string]>([{ ...value, messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'call_missing', content: 'x' }] }, 'orphan tool message']),
    fc.constantFrom(...badSchemas).map((schema) => [{ ...value, tools: [{ type: 'function', function: { name: 'f', parameters: schema } }], tool_choice: 'required' }, 'bad schema'] as [Json, string]),
    fc.constant<[Json, string]>([{ ...value, tools: Array.from({ length: 129 }, (_, index) => ({ type: 'function', function: { name: `t${index}` } })) }, '129 tools']),
    fc.constant<[Json, string]>([{ ...value, stop: ['a', 'b', 'c', 'd', 'e'] }, 'five stops']),
    fc.constant<[Json, string]>([{ ...value, messages: [] }, 'no messages']),
    fc.constant<[Json, string]>([{ ...value, messages: Array.from({ length: 500 }, () => ({ role: 'user', content: 'x' })) }, '500 messages']),
    fc.constant<[Json, string]>([{ ...value, max_tokens: 5, max_completion_tokens: 6 }, 'max tokens differ']),
    fc.constant<[Json, string]>([{ ...value, tool_choice: { type: 'function', function: { name: 'nope' } } }, 'unknown tool choice']),
    fc.constant<[Json, string]>([{ ...value, model: 'gpt-4o' }, 'unknown model']),
    fc.constant<[Json, string]>([{ ...value, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:' } }] }] }, 'image part']),
  );

const jsonValue: fc.Arbitrary<[Json, string]> = validRequest.chain((value) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<[Json, string]>([value, 'valid']) },
    { weight: 5, arbitrary: replaceSomewhere(value) },
    { weight: 2, arbitrary: deleteSomewhere(value) },
    { weight: 2, arbitrary: addKeys(value) },
    { weight: 3, arbitrary: protocolMistake(value) },
    { weight: 1, arbitrary: anyValue.map((other) => [other, 'top-level other value'] as [Json, string]) },
  ),
);

function toText(value: Json): string {
  let serialised = JSON.stringify(value);
  for (const [sentinel, literal] of Object.entries({ ...rawLiterals, ...rawKeys })) serialised = serialised.split(sentinel).join(literal);
  return serialised;
}

// ---------------------------------------------------------------- byte-level damage

const badBytes = fc.constantFrom<number[]>([0xff], [0xfe, 0xff], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x00]);

type ByteDamage = (bytes: Uint8Array) => fc.Arbitrary<[Uint8Array, string]>;
const concat = (...parts: Array<Uint8Array | number[]>) => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
};

const truncate: ByteDamage = (bytes) => fc.nat(Math.max(0, bytes.length - 1)).map((at) => [bytes.slice(0, at), `truncated at ${at}`]);
const insertBadBytes: ByteDamage = (bytes) =>
  fc.tuple(fc.nat(bytes.length), badBytes).map(([at, inserted]) => [concat(bytes.slice(0, at), inserted, bytes.slice(at)), `bytes ${inserted.map((byte) => byte.toString(16)).join(' ')} at ${at}`]);
const flipByte: ByteDamage = (bytes) =>
  fc.tuple(fc.nat(Math.max(0, bytes.length - 1)), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => {
    const copy = bytes.slice();
    if (copy.length > 0) copy[at] = byte;
    return [copy, `byte ${byte} at ${at}`];
  });
const breakSyntax: ByteDamage = (bytes) =>
  fc.constantFrom(',', '}', ']', '"', ':', '\\', ',}', 'NaN', 'undefined', "'", '/*', '\u2028').chain((token) =>
    fc.nat(bytes.length).map((at) => [concat(bytes.slice(0, at), encoder.encode(token), bytes.slice(at)), `inserted ${JSON.stringify(token)} at ${at}`] as [Uint8Array, string]),
  );
const nestDeep: ByteDamage = (bytes) =>
  fc.constantFrom(62, 63, 64, 65, 100, 1000, 10_000).map((depth) => {
    const text = new TextDecoder().decode(bytes);
    const nested = `{"deep":${'['.repeat(depth)}${']'.repeat(depth)},${text.startsWith('{') && text !== '{}' ? text.slice(1) : '"x":1}'}`;
    return [encoder.encode(nested), `nested ${depth} deep`];
  });
const noise: ByteDamage = () =>
  fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.string({ unit: 'binary', maxLength: 64 }).map((garbage) => encoder.encode(garbage))).map((garbage) => [garbage, 'noise']);
const nearLimit: ByteDamage = (bytes) =>
  fc.constantFrom(-1, 0, 1).map((delta) => {
    const text = new TextDecoder().decode(bytes);
    const prefix = '{"padding":"';
    const rest = text.startsWith('{') && text !== '{}' ? `",${text.slice(1)}` : '"}';
    const padding = 1024 * 1024 + delta - encoder.encode(prefix + rest).length;
    return [encoder.encode(prefix + 'x'.repeat(Math.max(0, padding)) + rest), `1 MiB ${delta >= 0 ? '+' : ''}${delta}`];
  });

const body: fc.Arbitrary<[Uint8Array | undefined, string]> = jsonValue.chain(([value, recipe]) => {
  const bytes = encoder.encode(toText(value));
  const damaged = (damage: ByteDamage) => damage(bytes).map(([out, how]) => [out, `${recipe}; ${how}`] as [Uint8Array, string]);
  return fc.oneof(
    { weight: 20, arbitrary: fc.constant<[Uint8Array, string]>([bytes, recipe]) },
    { weight: 2, arbitrary: damaged(truncate) },
    { weight: 2, arbitrary: damaged(insertBadBytes) },
    { weight: 1, arbitrary: damaged(flipByte) },
    { weight: 2, arbitrary: damaged(breakSyntax) },
    { weight: 2, arbitrary: damaged(nestDeep) },
    { weight: 1, arbitrary: damaged(noise) },
    { weight: 1, arbitrary: fc.constant<[undefined, string]>([undefined, 'no body']) },
    { weight: 1, arbitrary: fc.constant<[Uint8Array, string]>([concat([0xef, 0xbb, 0xbf], bytes), `${recipe}; BOM`]) },
    { weight: 1, arbitrary: fc.nat(49).chain((roll) => (roll === 0 ? damaged(nearLimit) : fc.constant<[Uint8Array, string]>([bytes, recipe]))) },
  );
});

// ---------------------------------------------------------------- headers, method, path

const headerText = fc.string({ unit: fc.constantFrom(...' !"#$%&\'()*+,-./0123456789:;<=>?@AZaz[\\]^_`{|}~\t\u00e9\u00ff\u0080'.split('')), maxLength: 40 });

const contentType = fc.oneof(
  { weight: 20, arbitrary: fc.constant<string | undefined>('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom<string | undefined>(
      undefined,
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      ' application/json ',
      'application/vnd.api+json',
      'application/json;;;==',
      'application/jsonx',
      'text/json',
      'text/plain',
      'text/event-stream',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      '*/*',
      '/',
      'application/json, text/plain',
      '',
    ),
  },
  { weight: 1, arbitrary: headerText },
);

const authorization = fc.oneof(
  { weight: 20, arbitrary: fc.constant<string | undefined>(`Bearer ${testKey}`) },
  {
    weight: 4,
    arbitrary: fc.constantFrom<string | undefined>(
      undefined,
      '',
      `Bearer ${liveKey}`,
      `bearer ${testKey}`,
      `Bearer  ${testKey}  `,
      `Bearer ${testKey}x`,
      `Bearer ${testKey.slice(0, -1)}`,
      `Basic ${testKey}`,
      'Bearer',
      'Bearer ',
      `Bearer ${testKey} ${testKey}`,
      'Bearer qc_test_',
      'Bearer qc_live_0000000000000000000000000000',
      `Token ${testKey}`,
      `Bearer ${'x'.repeat(4000)}`,
    ),
  },
  { weight: 1, arbitrary: headerText.map((garbage) => `Bearer ${garbage}`) },
  { weight: 1, arbitrary: headerText },
);

const extraHeaders = fc.record(
  {
    'x-stream-format': fc.constantFrom('openai', 'quantum', 'OPENAI', ''),
    'x-request-id': fc.oneof(fc.constantFrom('req-1', 'a'.repeat(200), '../../etc', 'id with spaces'), headerText),
    'x-service-signature': fc.constantFrom('t=1,v1=00', 'garbage', ''),
    accept: fc.constantFrom('text/event-stream', 'application/json', '*/*'),
  },
  { requiredKeys: [] },
);

const target = fc.oneof(
  { weight: 30, arbitrary: fc.constant(['POST', '/v1/chat/completions'] as const) },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
      fc.constantFrom('/v1/chat/completions', '/v1/models', '/v1/models/quantum-flash', '/v1/models/nope', '/v1/nope', '/v1/chat/completions?stream=true', '/v1/openapi.json'),
    ),
  },
);

/**
 * Requests for the fuzz suite: mostly malformed and adversarial (wrong types at every depth,
 * unknown and polluting keys, protocol mistakes, broken and truncated JSON, invalid UTF-8, deep
 * nesting, bodies at the size limit, odd content types and Authorization values), some valid.
 */
export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(target, body, contentType, authorization, extraHeaders)
  .map(([[method, path], [bytes, recipe], type, auth, extra]) => {
    const headers: Record<string, string> = { ...extra };
    if (type !== undefined) headers['content-type'] = type;
    if (auth !== undefined) headers.authorization = auth;
    const request: FuzzRequest = { method, path, headers, body: method === 'GET' ? undefined : bytes, recipe };
    return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
  });

/** A failing case as a reader wants it: the recipe, the headers and the body as (lossy) text. */
function describeRequest(request: FuzzRequest): string {
  const text = request.body === undefined ? '(no body)' : new TextDecoder().decode(request.body);
  const shown = text.length > 600 ? `${text.slice(0, 600)}… (${request.body?.byteLength} bytes)` : text;
  return `${request.method} ${request.path} [${request.recipe}] headers=${JSON.stringify(request.headers)} body=${JSON.stringify(shown)}`;
}
