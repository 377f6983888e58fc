// What the bare routes answer: the same bytes as the handler, built the cheap hand-written way.
import { randomBytes } from 'node:crypto';
import { usage } from '../lib/fixtures.mjs';

export const sseHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

const wireUsage = JSON.stringify({
  prompt_tokens: usage.promptTokens,
  completion_tokens: usage.completionTokens,
  total_tokens: usage.promptTokens + usage.completionTokens,
  completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
});

/**
 * A hand-written SSE route's frames, byte for byte the handler's quantum format: one template
 * per stream, `JSON.stringify` of each piece. This is the least a real route can do.
 */
export function createBareFrames(model = 'quantum-flash') {
  return {
    start() {
      const id = `chatcmpl-${randomBytes(18).toString('base64url').replace(/[-_]/g, 'x')}`;
      const head = `event: message\ndata: {"id":"${id}","object":"chat.completion.chunk","created":${Math.floor(Date.now() / 1000)},"model":"${model}","choices":[`;
      let first = true;
      return {
        content(text) {
          const role = first ? '"role":"assistant",' : '';
          first = false;
          return `${head}{"index":0,"delta":{${role}"content":${JSON.stringify(text)}},"finish_reason":null}]}\n\n`;
        },
        finish() {
          return `${head}{"index":0,"delta":{},"finish_reason":"stop"}],"usage":${wireUsage}}\n\n`;
        },
        done() {
          return 'data: [DONE]\n\n';
        },
      };
    },
  };
}

/** The response schema of the informational `fastify-bare-schema` route. */
export const completionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { type: 'integer' },
          message: {
            type: 'object',
            properties: { role: { type: 'string' }, content: { type: ['string', 'null'] } },
          },
          finish_reason: { type: 'string' },
          logprobs: { type: 'null' },
        },
      },
    },
    usage: {
      type: 'object',
      properties: {
        prompt_tokens: { type: 'integer' },
        completion_tokens: { type: 'integer' },
        total_tokens: { type: 'integer' },
        completion_tokens_details: { type: 'object', properties: { reasoning_tokens: { type: 'integer' } } },
      },
    },
  },
};
