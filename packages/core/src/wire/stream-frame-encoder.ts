import type { ErrorEnvelope } from '../schemas/error-envelope.js';
import type { TokenLogprob } from '../schemas/logprobs.js';
import type { Usage } from '../schemas/usage.js';
import { dataFrame, eventField, frameOpening } from '../sse/sse-frame-builders.js';

/** The two wire formats of a stream (decisions §4). */
export type StreamFormat = 'quantum' | 'openai';

export interface StreamEnvelope {
  id: string;
  created: number;
  model: string;
}

/** The stream's last frame in both formats (decisions §4). */
const doneFrame = dataFrame(frameOpening(''), '[DONE]');

/**
 * Encodes the frames of one stream. Chunks share one envelope, so its JSON is built once and
 * only each delta is serialised per frame. `JSON.stringify` never emits a raw line break, so
 * every `data:` payload is a single line and needs no splitting: the frames are built with
 * `sse/`'s unchecked builders, the ones `encodeSseEvent` uses once its checks pass.
 */
export function createStreamFrameEncoder(format: StreamFormat, envelope: StreamEnvelope) {
  const envelopeHead = `"id":${JSON.stringify(envelope.id)},"object":"chat.completion.chunk","created":${envelope.created},"model":${JSON.stringify(envelope.model)},`;
  const head = `${envelopeHead}"choices":[`;
  /** The head of a chunk that carries the model's fingerprint: before `choices`, where OpenAI puts it. */
  const headWith = (fingerprint: string | undefined) => (fingerprint === undefined ? head : `${envelopeHead}"system_fingerprint":${JSON.stringify(fingerprint)},"choices":[`);
  const openDelta = `{${head}{"index":0,"delta":{`;
  const closeDelta = '},"finish_reason":null}]}';
  const named = format === 'quantum';
  // Our format names each frame's event; OpenAI's sends every frame as the default `message`.
  const messageOpening = frameOpening(named ? eventField('message') : '');
  const thoughtOpening = frameOpening(eventField('thought_trace'));
  const plainOpening = frameOpening('');
  const errorOpening = frameOpening(named ? eventField('error') : '');
  let rolePending = true;

  function role(): string {
    if (!rolePending) return '';
    rolePending = false;
    return '"role":"assistant",';
  }
  function message(json: string): string {
    return dataFrame(messageOpening, json);
  }

  return {
    reasoning(text: string): string {
      const piece = JSON.stringify(text);
      const chunk = `${head}{"index":0,"delta":{${role()}"reasoning_content":${piece}${closeDelta}`;
      return named ? dataFrame(thoughtOpening, `{"delta":${piece},${chunk}`) : dataFrame(plainOpening, `{${chunk}`);
    },
    content(text: string, logprobs?: readonly TokenLogprob[]): string {
      if (logprobs === undefined) return message(`${openDelta}${role()}"content":${JSON.stringify(text)}${closeDelta}`);
      const probabilities = `"logprobs":{"content":${JSON.stringify(logprobs)},"refusal":null}`;
      return message(`${openDelta}${role()}"content":${JSON.stringify(text)}},${probabilities},"finish_reason":null}]}`);
    },
    toolCallStart(index: number, id: string, name: string): string {
      const call = `{"index":${index},"id":${JSON.stringify(id)},"type":"function","function":{"name":${JSON.stringify(name)},"arguments":""}}`;
      return message(`${openDelta}${role()}"tool_calls":[${call}]${closeDelta}`);
    },
    toolCallDelta(index: number, argumentsDelta: string): string {
      return message(`${openDelta}${role()}"tool_calls":[{"index":${index},"function":{"arguments":${JSON.stringify(argumentsDelta)}}}]${closeDelta}`);
    },
    /**
     * The last chunk; `usage` is left out when a `choices: []` usage chunk follows (decisions
     * §4.3). It and the usage chunk carry the model's `system_fingerprint` when it gave one.
     */
    finish(finishReason: string, usage: Usage | undefined, fingerprint?: string): string {
      // A stream whose engine produced nothing still gives the role on its first chunk.
      const delta = rolePending ? role().slice(0, -1) : '';
      const tail = usage === undefined ? '}' : `,"usage":${JSON.stringify(usage)}}`;
      return message(`{${headWith(fingerprint)}{"index":0,"delta":{${delta}},"finish_reason":${JSON.stringify(finishReason)}}]${tail}`);
    },
    usage(usage: Usage, fingerprint?: string): string {
      return message(`{${headWith(fingerprint)}],"usage":${JSON.stringify(usage)}}`);
    },
    done(): string {
      return doneFrame;
    },
    error(error: ErrorEnvelope): string {
      return dataFrame(errorOpening, JSON.stringify(error));
    },
  };
}

export type StreamFrameEncoder = ReturnType<typeof createStreamFrameEncoder>;
