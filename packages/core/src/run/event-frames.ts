import type { ChatEngineEvent } from '../engine/chat-engine.js';
import type { StreamFrameEncoder } from '../wire/stream-frame-encoder.js';
import { createToolCallIndexer } from '../wire/tool-call-indexer.js';
import { toWireUsage } from '../wire/wire-usage.js';
import type { RunSettings } from './run-settings.js';

/**
 * Turns a stream's engine events into its SSE frames, one string per event ('' for none): one
 * yield per event, not one per frame, so a tool call's first fragment or the finish, usage and
 * [DONE] frames cost one pass through the async iterators between engine and socket.
 */
export function createEventFramer(settings: RunSettings, encoder: StreamFrameEncoder): (event: ChatEngineEvent) => string {
  const indexer = createToolCallIndexer(settings.generateId);
  const showReasoning = settings.request.reasoning;
  const showLogprobs = settings.request.logprobs !== undefined;
  const { includeUsage } = settings;

  return function framesOf(event: ChatEngineEvent): string {
    switch (event.type) {
      case 'reasoning':
        return showReasoning && event.text !== '' ? encoder.reasoning(event.text) : '';
      case 'content':
        if (event.text === '') return '';
        return showLogprobs && event.logprobs !== undefined ? encoder.content(event.text, event.logprobs) : encoder.content(event.text);
      case 'tool-call': {
        const { call, started } = indexer.resolve(event.index, event.name);
        const start = started ? encoder.toolCallStart(call.index, call.id, call.name) : '';
        return event.argumentsDelta !== '' ? start + encoder.toolCallDelta(call.index, event.argumentsDelta) : start;
      }
      case 'finish': {
        const usage = toWireUsage(event.usage);
        const finishReason = indexer.count() > 0 && event.reason === 'stop' ? 'tool_calls' : event.reason;
        // With include_usage only the extra `choices: []` chunk carries usage: clients such as
        // LangChain add up every usage they see (decisions §4.3).
        const fingerprint = event.systemFingerprint;
        if (includeUsage) return encoder.finish(finishReason, undefined, fingerprint) + encoder.usage(usage, fingerprint) + encoder.done();
        return encoder.finish(finishReason, usage, fingerprint) + encoder.done();
      }
    }
  };
}
