// One item of the `text/event-stream` answer, in the form OpenAPI 3.2 gives Server-Sent Events:
// each event parsed as the HTML standard says (comments and keep-alives dropped, `data:` lines
// joined) and modelled as an object with the string fields `event`, `data`, `id` and the
// integer `retry`. Our `data` is JSON text, or the literal `[DONE]`: JSON Schema's content
// keywords (`contentMediaType` + `contentSchema`) say which JSON, so a validator that decodes
// content checks every chunk, and one that does not still checks the names and the shapes.

type JsonObject = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A `data` field holding JSON text valid against `schema`. */
const jsonText = (schema: JsonObject): JsonObject => ({ type: 'string', contentMediaType: 'application/json', contentSchema: schema });

/** What the streamed answer is, in words: the response and the item schema both say it. */
const streamDescription = [
  'Server-Sent Events (decisions §4), one item per event. Quantum format (the default): `event: thought_trace`',
  '(ThoughtTraceChunk) for quantum-reasoner, then `event: message` (ChatCompletionChunk), a last `message`',
  'chunk with `finish_reason` (and `usage`, unless `stream_options.include_usage` asks for one more chunk with',
  '`choices: []` and `usage`), then `data: [DONE]`. A failure after the first byte is `event: error`',
  '(ErrorEnvelope) and the stream ends without `[DONE]`. OpenAI format (`x-stream-format: openai`, or the',
  '`/compat/v1` prefix): the same chunks and errors as unnamed events. `: keep-alive` comments come while',
  'nothing else is sent; they are not events. A resumable stream (`stream_options.resumable`) numbers each event',
  '(`id:`) and starts with `retry: 1000`.',
].join(' ');

/**
 * The item schema of the stream (`itemSchema` of `text/event-stream`). The variants are told
 * apart by `event`; an unnamed event and `event: message` share one variant, because an
 * EventSource reads both as a `message` event (and so do tools that fill in the default name).
 */
export const chatStreamEventSchema: JsonObject = {
  description: `One event of the stream. ${streamDescription}`,
  type: 'object',
  required: ['data'],
  properties: {
    event: { type: 'string', description: 'The `event:` field; absent on unnamed events.' },
    data: { type: 'string', description: 'The `data:` field: JSON text, or `[DONE]` on the last event.' },
    id: { type: 'string', pattern: '^[1-9][0-9]*$', description: 'A resumable stream\'s frame number (1, 2, 3, …; decisions §4.7): the `Last-Event-ID` of a resume. Absent on other streams.' },
    retry: { type: 'integer', minimum: 0, description: '`1000` on the first frame of a resumable stream; absent otherwise.' },
  },
  oneOf: [
    {
      description: 'Quantum format: a piece of the reasoning trace (quantum-reasoner), before the answer.',
      required: ['event'],
      properties: { event: { const: 'thought_trace' }, data: jsonText(ref('ThoughtTraceChunk')) },
    },
    {
      description: 'Quantum format: a failure after the first byte; the stream then ends without `[DONE]`.',
      required: ['event'],
      properties: { event: { const: 'error' }, data: jsonText(ref('ErrorEnvelope')) },
    },
    {
      description:
        'A piece of the answer, a tool-call fragment, the last chunk with `finish_reason`, the `include_usage` chunk, or `[DONE]`, which ends every stream that did not fail. Named `message` in the Quantum format (where `[DONE]` is unnamed); all unnamed in the OpenAI format, failures included.',
      properties: {
        event: { const: 'message' },
        data: { anyOf: [{ const: '[DONE]' }, jsonText({ anyOf: [ref('ChatCompletionChunk'), ref('ErrorEnvelope')] })] },
      },
    },
  ],
};
