import * as z from 'zod';
import { errorCodes } from '../errors/error-codes.js';
import { builtinModels } from '../models/builtin-models.js';
import { chatCompletionChunkSchema } from '../schemas/chat-completion-chunk.js';
import { chatCompletionRequestSchema, defaultMaxTokens, defaultTemperature, maxLogitBiasEntries, maxTokensCeiling } from '../schemas/chat-completion-request.js';
import { chatCompletionSchema } from '../schemas/chat-completion.js';
import { errorEnvelopeSchema } from '../schemas/error-envelope.js';
import { modelListSchema, modelSchema } from '../schemas/model.js';
import { thoughtTraceChunkSchema } from '../schemas/thought-trace-chunk.js';
import { createResponseRequestSchema } from '../schemas/responses/create-response-request.js';
import { inputItemSchema } from '../schemas/responses/input-item.js';
import { responseObjectSchema } from '../schemas/responses/response-object-schema.js';
import { chatStreamEventSchema } from './stream-event-schema.js';

export interface OpenApiDocumentOptions {
  /** The server URL, ending with the version segment, e.g. `http://127.0.0.1:8080/v1`. */
  serverUrl?: string;
  version?: string;
  /** The model ids the server answers, in listing order; the four of the contract by default. */
  models?: readonly string[];
}

type JsonObject = Record<string, unknown>;

/** A zod schema as a JSON Schema (2020-12, the dialect of OpenAPI 3.1 and 3.2) without its `$schema`. */
function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonObject;
  return rest;
}

/** What the reference says of each request field (spec §4.1, decisions §2), with the defaults the handler applies. */
const requestFieldNotes: Record<string, { description: string; default?: unknown }> = {
  model: {
    description:
      'A model this server answers (`GET /models` lists them with the plan each needs): `quantum-lite`, `quantum-flash`, `quantum-reasoner`, `quantum-pro` (needs the `elite` plan), and any it adds. An unknown model is 404 `model_not_found`.',
  },
  messages: {
    description:
      'The conversation: `system` (or `developer`), `user`, `assistant` and `tool` messages. An `assistant` message needs `content` or `tool_calls`. A `tool` message answers a tool call of an earlier assistant message through `tool_call_id` (else 400).',
  },
  stream: { description: 'Stream the answer as Server-Sent Events.', default: false },
  temperature: { description: 'From 0 (deterministic) to 2 (creative).', default: defaultTemperature },
  max_tokens: { description: `Upper bound on generated tokens, reasoning included; at most ${maxTokensCeiling}.`, default: defaultMaxTokens },
  max_completion_tokens: { description: 'Another name for `max_tokens`; if both are given they must be equal.' },
  stop: { description: 'A sequence, or up to 4, where generation stops.' },
  seed: { description: 'Accepted and validated; the reference engine is deterministic with or without it.' },
  user: { description: 'An id of your end user.' },
  metadata: { description: 'At most 16 string values.' },
  n: { description: 'Only 1 is supported; anything else is 400 `unsupported_value`.' },
  parallel_tool_calls: { description: 'Let the model call several tools at once.', default: true },
  stream_options: {
    description:
      '`include_usage`: one more chunk with `choices: []` and `usage` before `[DONE]`. `resumable` (needs `stream: true`): the stream survives a dropped connection; its frames are numbered, its id comes as `x-quantum-stream-id`, and `GET /chat/completions/{id}/stream` resumes it (decisions §4.7).',
  },
  tools: {
    description:
      'Function tools the model may call (at most 128). Names match `^[a-zA-Z0-9_-]{1,64}$` and are unique: a repeated name is 400 `invalid_value` naming the repeat (`tools[2].function.name`). `parameters` is a valid JSON Schema with an object root (else 400 `invalid_tool_schema`).',
  },
  tool_choice: { description: '`auto` (the default with tools), `none` (the default without), `required` (needs tools), or `{"type": "function", "function": {"name": …}}` naming a tool in `tools`.' },
  response_format: {
    description:
      '`{"type": "text"}` (the default), `{"type": "json_object"}` for a JSON object, or `{"type": "json_schema", "json_schema": {"name", "schema", "strict"?}}` for JSON valid against `schema` (checked like tool parameters).',
  },
  logprobs: { description: 'Return the log probability of each content token in `choices[].logprobs`.', default: false },
  top_logprobs: { description: 'How many of the most likely alternatives to list per token, 0 to 20; needs `logprobs: true`.' },
  presence_penalty: { description: 'From -2 to 2; passed to the model runtime.' },
  frequency_penalty: { description: 'From -2 to 2; passed to the model runtime.' },
  logit_bias: { description: `Token ids (as strings) to a bias from -100 to 100, at most ${maxLogitBiasEntries} of them; passed to the model runtime.` },
  reasoning_effort: { description: '`low`, `medium` or `high`; passed to the model runtime.' },
};

/**
 * The request schema as the reference shows it: each field described, with its default. The
 * handler reads a top-level `null` as absent (decisions §1) before zod sees the body, so every
 * optional top-level field may be `null` too.
 */
function describeRequest(schema: JsonObject, models: readonly string[]): JsonObject {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const properties = Object.entries(schema.properties as Record<string, JsonObject>).map(([name, property]) => {
    // The handler looks the model up in its registry: the document lists what is there.
    const tightened = name === 'model' ? { ...property, enum: [...models] } : property;
    return [name, { ...(required.has(name) ? tightened : { anyOf: [tightened, { type: 'null' }] }), ...requestFieldNotes[name] }];
  });
  return { ...schema, properties: Object.fromEntries(properties) };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

const rateLimitHeaders = Object.fromEntries(
  ['limit', 'remaining', 'reset'].flatMap((part) => ['requests', 'tokens'].map((kind) => [`x-ratelimit-${part}-${kind}`, headerRef(`RateLimit-${part}-${kind}`)])),
);

/** Extra headers of some error statuses (decisions §1, §5). */
const errorHeaders: Record<number, JsonObject> = {
  405: { allow: { schema: { type: 'string' }, description: 'The methods the path accepts.' } },
  503: { 'retry-after': { required: true, schema: { type: 'integer', minimum: 1 }, description: 'Seconds to wait before trying again: every 503 has one.' } },
  429: {
    'retry-after': { schema: { type: 'integer', minimum: 1 }, description: 'Seconds to wait (`rate_limit_exceeded`).' },
    'retry-after-ms': { schema: { type: 'integer', minimum: 0 }, description: 'Milliseconds to wait (`rate_limit_exceeded`).' },
    'x-should-retry': { schema: { type: 'string', const: 'false' }, description: 'Sent with `insufficient_quota`: retrying does not help.' },
    ...rateLimitHeaders,
  },
};

/** A path we do not serve is `unknown_url`: never the answer of an operation this document lists. */
const routingOnlyCodes = new Set(['unknown_url', 'method_not_allowed']);

/**
 * The envelope of one status: `type` and `code` from the one code table, each type with its
 * own codes, so a validator catches a code sent with the wrong status or the wrong type.
 */
function errorEnvelopeOf(types: Map<string, string[]>): JsonObject {
  const pairs = [...types].map(([type, codes]) => ({ properties: { type: { const: type }, code: { enum: codes } } }));
  return { allOf: [ref('ErrorEnvelope'), { properties: { error: pairs.length === 1 ? pairs[0] : { anyOf: pairs } } }] };
}

/** Error responses grouped by status, straight from the one code table. */
function errorResponses(statuses: number[]): JsonObject {
  const byStatus = new Map<number, Map<string, string[]>>();
  for (const [code, { status, type }] of Object.entries(errorCodes)) {
    if (!statuses.includes(status) || routingOnlyCodes.has(code)) continue;
    const types = byStatus.get(status) ?? new Map<string, string[]>();
    types.set(type, [...(types.get(type) ?? []), code]);
    byStatus.set(status, types);
  }
  const describe = (types: Map<string, string[]>) => [...types].map(([type, codes]) => `\`${type}\`: ${codes.map((code) => `\`${code}\``).join(', ')}`).join('; ');
  return Object.fromEntries(
    [...byStatus].map(([status, types]) => [
      String(status),
      {
        description: `The error envelope. ${describe(types)}.`,
        headers: { 'x-request-id': headerRef('RequestId'), ...errorHeaders[status] },
        content: { 'application/json': { schema: errorEnvelopeOf(types) } },
      },
    ]),
  );
}

const jsonContent = (schema: JsonObject) => ({ 'application/json': { schema } });

/** The `{id}` of the resumable-stream routes: the stream's completion id. */
const streamIdParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1 }, description: 'The stream id (`x-quantum-stream-id`): its completion id.' };

/**
 * Why OpenAPI 3.2 and not 3.1 (which the contract names): only 3.2 describes an event stream
 * item by item (`itemSchema` on `text/event-stream`, each event an object with `event`, `data`,
 * `id` and `retry`), which is what lets validators and test tools check every frame we send.
 * In 3.1 a Media Type Object admits no such field (the 3.1 schema refuses it; only `x-` names
 * pass, which tools ignore), so "3.1 with itemSchema" would be an invalid 3.1 document. 3.2 is a
 * compatible minor release: the same Schema Object (JSON Schema 2020-12) and the same shapes,
 * so a reader written for 3.1 reads the rest of this document unchanged.
 */
/** A create-response request as the handler reads it: `model` one of the server's, and (as in chat) any optional field `null`. */
function withModels(schema: JsonObject, models: readonly string[]): JsonObject {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const properties = Object.entries(schema.properties as Record<string, JsonObject>).map(([name, property]) => {
    if (name === 'model') return [name, { ...property, enum: [...models], ...requestFieldNotes.model }];
    return [name, required.has(name) ? property : { anyOf: [property, { type: 'null' }] }];
  });
  return { ...schema, properties: Object.fromEntries(properties) };
}

const responseIdParameter = { name: 'response_id', in: 'path', required: true, schema: { type: 'string', minLength: 1 }, description: 'The response id (`resp_…`).' };

const openApiVersion = '3.2.0';

/**
 * The OpenAPI 3.2 document of the service, generated from the same zod schemas the handler
 * validates with, so the two cannot drift.
 *
 * @example
 * const document = createOpenApiDocument({ serverUrl: 'http://127.0.0.1:8080/v1' });
 */
export function createOpenApiDocument(options: OpenApiDocumentOptions = {}): JsonObject {
  const modelsSecurity = [{}, { bearerAuth: [] }];
  const models = options.models ?? builtinModels.map((model) => model.id);
  return {
    openapi: openApiVersion,
    info: {
      title: 'Quantum chat-completions API',
      version: options.version ?? '1.0.0-preview',
      description:
        'Chat completions with streaming, reasoning traces and tool calling, and a model list, in the common chat-completion format. An early-access preview: the interface may change at release.',
    },
    servers: [{ url: options.serverUrl ?? '/v1' }],
    security: [{ bearerAuth: [] }],
    paths: {
      '/chat/completions': {
        post: {
          operationId: 'createChatCompletion',
          summary: 'Create a chat completion',
          description:
            'Generates the assistant message for a conversation: the whole completion, or (with `stream: true`) an event stream. `quantum-reasoner` adds a reasoning trace; with `tools` the model may answer with tool calls. `quantum-pro` needs the `elite` plan.',
          parameters: [
            // Only `openai` chooses (decisions §4); the handler reads no other value, so the document refuses none.
            {
              name: 'x-stream-format',
              in: 'header',
              required: false,
              schema: { type: 'string', examples: ['openai'] },
              description:
                '`openai` asks for the OpenAI stream format (unnamed `data:` lines). Without it, or with any other value, a stream comes in the server\'s own format: the Quantum format (named events) unless the server is set to the OpenAI format, as the ready server is on `/compat/v1`.',
            },
            { name: 'X-Service-Signature', in: 'header', required: false, schema: { type: 'string' }, description: '`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (decisions §7).' },
          ],
          requestBody: { required: true, content: jsonContent(ref('ChatCompletionRequest')) },
          responses: {
            '200': {
              description: 'A completion (`stream` false or absent) or an event stream (`stream` true), one `ChatStreamEvent` per event.',
              headers: {
                'x-request-id': headerRef('RequestId'),
                'x-quantum-ignored-params': { schema: { type: 'string' }, description: 'Unknown top-level fields that were ignored, comma-separated.' },
                'x-quantum-stream-id': headerRef('StreamId'),
                ...rateLimitHeaders,
              },
              content: {
                ...jsonContent(ref('ChatCompletion')),
                'text/event-stream': { itemSchema: ref('ChatStreamEvent') },
              },
            },
            ...errorResponses([400, 401, 403, 404, 408, 413, 415, 429, 500, 502, 503, 504]),
          },
        },
      },
      '/chat/completions/{id}/stream': {
        get: {
          operationId: 'resumeChatCompletionStream',
          summary: 'Resume a chat completion stream',
          description:
            'The frames of a resumable stream (decisions §4.7) after `Last-Event-ID` or `starting_after` (from the start without either), byte for byte as first sent, then the live ones to the stream\'s end, in the format of the request that made it.',
          parameters: [
            streamIdParameter,
            { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: '^(0|[1-9][0-9]{0,14})$' }, description: 'The id of the last frame received.' },
            { name: 'starting_after', in: 'query', required: false, schema: { type: 'integer', minimum: 0, maximum: 999_999_999_999_999 }, description: 'The same as `Last-Event-ID`; both given and different: 400.' },
          ],
          responses: {
            '200': {
              description: 'The rest of the stream.',
              headers: { 'x-request-id': headerRef('RequestId'), 'x-quantum-stream-id': headerRef('StreamId') },
              content: { 'text/event-stream': { itemSchema: ref('ChatStreamEvent') } },
            },
            ...errorResponses([400, 401, 404, 500, 503]),
          },
        },
      },
      '/chat/completions/{id}': {
        get: {
          operationId: 'retrieveChatCompletion',
          summary: 'The result of a resumable stream',
          description: 'A finished resumable stream as the completion its chunks add up to; 409 `stream_in_progress` while it runs, and the error that ended it (409 `cancelled`, 502 `stream_lost`, 504 `upstream_timeout` for a run past its time limit with no reader, …) for one that failed.',
          parameters: [streamIdParameter],
          responses: {
            '200': { description: 'The completion.', headers: { 'x-request-id': headerRef('RequestId'), 'x-quantum-stream-id': headerRef('StreamId') }, content: jsonContent(ref('ChatCompletion')) },
            ...errorResponses([401, 404, 409, 500, 502, 503, 504]),
          },
        },
      },
      '/chat/completions/{id}/cancel': {
        post: {
          operationId: 'cancelChatCompletionStream',
          summary: 'Cancel a resumable stream',
          description: 'Stops the stream\'s generation (its readers get an error frame with code `cancelled`); usage is charged for what was produced. Idempotent.',
          parameters: [streamIdParameter],
          responses: {
            '200': {
              description: 'The stream\'s status.',
              headers: { 'x-request-id': headerRef('RequestId'), 'x-quantum-stream-id': headerRef('StreamId') },
              content: jsonContent(ref('ChatCompletionStreamStatus')),
            },
            ...errorResponses([401, 404, 500, 503]),
          },
        },
      },
      '/responses': {
        post: {
          operationId: 'createResponse',
          summary: 'Create a response (the Responses API)',
          description:
            'The Responses API (decisions §10) over the same engines, keys, plans, quotas and signatures as chat completions: a `Response`, or (with `stream: true`) named events each carrying `type` and `sequence_number`, ending with `response.completed`, `response.incomplete` or `response.failed` (no `[DONE]`). With `store` (the default) the response is kept for `previous_response_id`, `item_reference` and the routes below; `background: true` answers at once with `status: "queued"` and runs on.',
          parameters: [{ name: 'X-Service-Signature', in: 'header', required: false, schema: { type: 'string' }, description: '`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (decisions §7).' }],
          requestBody: { required: true, content: jsonContent(ref('CreateResponseRequest')) },
          responses: {
            '200': {
              description: 'The `Response`, or its event stream (`stream` true).',
              headers: {
                'x-request-id': headerRef('RequestId'),
                'x-quantum-ignored-params': { schema: { type: 'string' }, description: 'Unknown top-level fields that were ignored, comma-separated.' },
                ...rateLimitHeaders,
              },
              content: { ...jsonContent(ref('Response')), 'text/event-stream': { itemSchema: ref('ResponseStreamEvent') } },
            },
            ...errorResponses([400, 401, 403, 404, 408, 413, 415, 429, 500, 502, 503, 504]),
          },
        },
      },
      '/responses/{response_id}': {
        get: {
          operationId: 'retrieveResponse',
          summary: 'Retrieve a stored response',
          description:
            'A stored response as it stands (a background one: `queued`, `in_progress`, then its final status). With `stream=true`, the events of a stored streamed or background response after `starting_after` (a `sequence_number`), then the live ones. Another organisation\'s, a deleted, an expired or a `store: false` response is 404 `response_not_found`.',
          parameters: [
            responseIdParameter,
            { name: 'stream', in: 'query', required: false, schema: { type: 'boolean' }, description: 'Replay and follow the response\'s events.' },
            { name: 'starting_after', in: 'query', required: false, schema: { type: 'integer', minimum: 0 }, description: 'With `stream=true`: only events with a greater `sequence_number`.' },
          ],
          responses: {
            '200': {
              description: 'The response, or its events.',
              headers: { 'x-request-id': headerRef('RequestId') },
              content: { ...jsonContent(ref('Response')), 'text/event-stream': { itemSchema: ref('ResponseStreamEvent') } },
            },
            ...errorResponses([400, 401, 404, 429, 500, 503]),
          },
        },
        delete: {
          operationId: 'deleteResponse',
          summary: 'Delete a stored response',
          parameters: [responseIdParameter],
          responses: {
            '200': { description: 'The deletion.', headers: { 'x-request-id': headerRef('RequestId') }, content: jsonContent(ref('ResponseDeleted')) },
            ...errorResponses([401, 404, 429, 500, 503]),
          },
        },
      },
      '/responses/{response_id}/cancel': {
        post: {
          operationId: 'cancelResponse',
          summary: 'Cancel a background response',
          description: 'Stops a queued or running background response (from any instance); it ends `cancelled`, usage charged for what was produced. A finished one is answered as it is; a response not made with `background: true` is 400.',
          parameters: [responseIdParameter],
          responses: {
            '200': { description: 'The response.', headers: { 'x-request-id': headerRef('RequestId') }, content: jsonContent(ref('Response')) },
            ...errorResponses([400, 401, 404, 429, 500, 503]),
          },
        },
      },
      '/responses/{response_id}/input_items': {
        get: {
          operationId: 'listResponseInputItems',
          summary: 'List a stored response\'s input items',
          parameters: [
            responseIdParameter,
            { name: 'after', in: 'query', required: false, schema: { type: 'string' }, description: 'List the items after the one with this id.' },
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
            { name: 'order', in: 'query', required: false, schema: { enum: ['asc', 'desc'], default: 'desc' } },
          ],
          responses: {
            '200': { description: 'A page of input items.', headers: { 'x-request-id': headerRef('RequestId') }, content: jsonContent(ref('ResponseInputItemList')) },
            ...errorResponses([400, 401, 404, 429, 500, 503]),
          },
        },
      },
      '/models': {
        get: {
          operationId: 'listModels',
          summary: 'List models',
          description: 'The four models in spec order, with the plan each requires. With a valid key each model also says whether it is `available` to that key; an invalid key is a 401.',
          security: modelsSecurity,
          responses: {
            '200': { description: 'The model list.', headers: { 'x-request-id': headerRef('RequestId') }, content: jsonContent(ref('ModelList')) },
            ...errorResponses([401, 500, 503]),
          },
        },
      },
      '/models/{model}': {
        get: {
          operationId: 'retrieveModel',
          summary: 'Retrieve a model',
          security: modelsSecurity,
          parameters: [{ name: 'model', in: 'path', required: true, schema: { type: 'string', enum: [...models] }, description: 'A model id, e.g. `quantum-lite`; another is 404 `model_not_found`.' }],
          responses: {
            '200': { description: 'The model.', headers: { 'x-request-id': headerRef('RequestId') }, content: jsonContent(ref('Model')) },
            ...errorResponses([401, 404, 500, 503]),
          },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          security: [{}],
          responses: {
            '200': { description: 'The OpenAPI 3.2 document.', headers: { 'x-request-id': headerRef('RequestId') }, content: jsonContent({ type: 'object' }) },
            ...errorResponses([500, 503]),
          },
        },
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `qc_live_…` or `qc_test_…` (test keys are answered by the deterministic reference engine).' } },
      headers: {
        StreamId: { required: false, schema: { type: 'string', pattern: '^chatcmpl-' }, description: 'A resumable stream\'s id (decisions §4.7): resume it at `/chat/completions/{id}/stream`.' },
        RequestId: { required: true, schema: { type: 'string', minLength: 1 }, description: 'The request id: a sane incoming `x-request-id` is echoed, otherwise one is generated.' },
        ...Object.fromEntries(
          ['limit', 'remaining', 'reset'].flatMap((part) =>
            ['requests', 'tokens'].map((kind) => [`RateLimit-${part}-${kind}`, { schema: { type: 'string' }, description: `Rate limit ${part} (${kind}) of the key's organisation.` }]),
          ),
        ),
      },
      schemas: {
        ChatCompletionRequest: describeRequest(toSchema(chatCompletionRequestSchema, 'input'), models),
        ChatCompletion: toSchema(chatCompletionSchema, 'output'),
        ChatCompletionChunk: toSchema(chatCompletionChunkSchema, 'output'),
        ThoughtTraceChunk: toSchema(thoughtTraceChunkSchema, 'output'),
        ChatStreamEvent: chatStreamEventSchema,
        Model: toSchema(modelSchema, 'output'),
        ModelList: toSchema(modelListSchema, 'output'),
        ErrorEnvelope: toSchema(errorEnvelopeSchema, 'output'),
        CreateResponseRequest: withModels(toSchema(createResponseRequestSchema, 'input'), models),
        Response: toSchema(responseObjectSchema, 'output'),
        ResponseStreamEvent: {
          type: 'object',
          required: ['event', 'data'],
          properties: {
            event: { type: 'string', description: 'The event\'s `type`: `response.created`, `response.output_text.delta`, …, `response.completed`, `error`.' },
            data: { type: 'string', contentMediaType: 'application/json', contentSchema: { type: 'object', required: ['type', 'sequence_number'], properties: { type: { type: 'string' }, sequence_number: { type: 'integer', minimum: 0 } } } },
          },
        },
        ResponseDeleted: { type: 'object', required: ['id', 'object', 'deleted'], properties: { id: { type: 'string' }, object: { const: 'response.deleted' }, deleted: { const: true } } },
        ResponseInputItemList: {
          type: 'object',
          required: ['object', 'data', 'first_id', 'last_id', 'has_more'],
          properties: {
            object: { const: 'list' },
            data: { type: 'array', items: toSchema(inputItemSchema, 'output') },
            first_id: { type: ['string', 'null'] },
            last_id: { type: ['string', 'null'] },
            has_more: { type: 'boolean' },
          },
        },
        ChatCompletionStreamStatus: {
          type: 'object',
          required: ['id', 'object', 'status'],
          properties: { id: { type: 'string' }, object: { const: 'chat.completion.stream' }, status: { enum: ['cancelled', 'completed', 'failed'] } },
        },
      },
    },
  };
}
