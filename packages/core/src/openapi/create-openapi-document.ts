import * as z from 'zod';
import { errorCodes } from '../errors/error-codes.js';
import { chatCompletionChunkSchema } from '../schemas/chat-completion-chunk.js';
import { chatCompletionRequestSchema } from '../schemas/chat-completion-request.js';
import { chatCompletionSchema } from '../schemas/chat-completion.js';
import { errorEnvelopeSchema } from '../schemas/error-envelope.js';
import { modelListSchema, modelSchema } from '../schemas/model.js';
import { thoughtTraceChunkSchema } from '../schemas/thought-trace-chunk.js';

export interface OpenApiDocumentOptions {
  /** The server URL, ending with the version segment, e.g. `http://127.0.0.1:8080/v1`. */
  serverUrl?: string;
  version?: string;
}

type JsonObject = Record<string, unknown>;

/** A zod schema as a JSON Schema (2020-12, the dialect of OpenAPI 3.1) without its `$schema`. */
function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonObject;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function errorResponse(description: string, codes: string[]) {
  return {
    description: `${description} Codes: ${codes.join(', ')}.`,
    headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
    content: { 'application/json': { schema: ref('ErrorEnvelope') } },
  };
}

/** Error responses grouped by status, straight from the one code table. */
function errorResponses(statuses: number[]): JsonObject {
  const byStatus = new Map<number, string[]>();
  for (const [code, { status }] of Object.entries(errorCodes)) {
    if (statuses.includes(status)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].map(([status, codes]) => [String(status), errorResponse('Error envelope.', codes)]));
}

const streamDescription = [
  'Server-Sent Events (decisions §4). Quantum format (default): `event: thought_trace` frames',
  '(ThoughtTraceChunk) for quantum-reasoner, then `event: message` frames (ChatCompletionChunk),',
  'a last `message` chunk with `finish_reason` and `usage`, then `data: [DONE]`. A failure after',
  'the first byte is `event: error` (ErrorEnvelope) and the stream ends without `[DONE]`. OpenAI',
  'format (`x-stream-format: openai`, or the `/compat/v1` prefix): the same chunks as unnamed',
  '`data:` lines. `: keep-alive` comments are sent while idle.',
].join(' ');

/**
 * The OpenAPI 3.1 document of the service, generated from the same zod schemas the handler
 * validates with, so the two cannot drift.
 *
 * @example
 * const document = createOpenApiDocument({ serverUrl: 'http://127.0.0.1:8080/v1' });
 */
export function createOpenApiDocument(options: OpenApiDocumentOptions = {}): JsonObject {
  const authErrors = errorResponses([400, 401, 403, 404, 405, 413, 415, 429, 500, 502, 503, 504]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Quantum chat-completions API',
      version: options.version ?? '1.0.0-preview',
      description: 'Chat completions with streaming, reasoning traces and tool calling, and a model list.',
    },
    servers: [{ url: options.serverUrl ?? '/v1' }],
    security: [{ bearerAuth: [] }],
    paths: {
      '/chat/completions': {
        post: {
          operationId: 'createChatCompletion',
          summary: 'Create a chat completion',
          parameters: [
            { name: 'x-stream-format', in: 'header', required: false, schema: { type: 'string', enum: ['quantum', 'openai'] }, description: 'The stream wire format.' },
            { name: 'X-Service-Signature', in: 'header', required: false, schema: { type: 'string' }, description: '`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (decisions §7).' },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: ref('ChatCompletionRequest') } } },
          responses: {
            '200': {
              description: 'A completion (`stream` false) or an event stream (`stream` true).',
              headers: {
                'x-request-id': { $ref: '#/components/headers/RequestId' },
                'x-quantum-ignored-params': { schema: { type: 'string' }, description: 'Unknown top-level fields that were ignored.' },
              },
              content: {
                'application/json': { schema: ref('ChatCompletion') },
                'text/event-stream': {
                  schema: { type: 'string', description: streamDescription },
                  'x-sse-events': {
                    thought_trace: ref('ThoughtTraceChunk'),
                    message: ref('ChatCompletionChunk'),
                    error: ref('ErrorEnvelope'),
                    done: { const: '[DONE]' },
                  },
                },
              },
            },
            ...authErrors,
          },
        },
      },
      '/models': {
        get: {
          operationId: 'listModels',
          summary: 'List models',
          security: [{}, { bearerAuth: [] }],
          responses: {
            '200': { description: 'The four models in spec order.', content: { 'application/json': { schema: ref('ModelList') } } },
            ...errorResponses([401, 405]),
          },
        },
      },
      '/models/{model}': {
        get: {
          operationId: 'retrieveModel',
          summary: 'Retrieve a model',
          security: [{}, { bearerAuth: [] }],
          parameters: [{ name: 'model', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'The model.', content: { 'application/json': { schema: ref('Model') } } },
            ...errorResponses([401, 404, 405]),
          },
        },
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `qc_live_…` or `qc_test_…`.' } },
      headers: { RequestId: { schema: { type: 'string' }, description: 'The request id, echoed or generated.' } },
      schemas: {
        ChatCompletionRequest: toSchema(chatCompletionRequestSchema, 'input'),
        ChatCompletion: toSchema(chatCompletionSchema, 'output'),
        ChatCompletionChunk: toSchema(chatCompletionChunkSchema, 'output'),
        ThoughtTraceChunk: toSchema(thoughtTraceChunkSchema, 'output'),
        Model: toSchema(modelSchema, 'output'),
        ModelList: toSchema(modelListSchema, 'output'),
        ErrorEnvelope: toSchema(errorEnvelopeSchema, 'output'),
      },
    },
  };
}
