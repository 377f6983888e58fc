import { expect } from 'vitest';

/** What a stream amounted to, once every frame passed the decisions §4 checks. */
export interface StreamSummary {
  reasoning: string;
  content: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string | undefined;
  usage: unknown;
  /** The error envelope of an `error` frame (the stream then has no `[DONE]`). */
  error: { message: string; type: string; param: string | null; code: string } | undefined;
  done: boolean;
  frames: number;
}

const chunkId = /^chatcmpl-[0-9A-Za-z]{24,}$/;
const callId = /^call_[0-9A-Za-z]{24}$/;

/**
 * Reads a whole SSE body in our quantum format (or the OpenAI one) and checks every frame
 * against decisions §4: event names, one shared envelope, the role on the first chunk only,
 * thought traces before answer tokens with the spec's `delta` string, tool-call fragment
 * shapes and stable indexes, the finish chunk with usage, the optional usage chunk, and
 * `[DONE]` last (or an `error` frame last, and no `[DONE]`).
 */
export function readSpecStream(text: string, options: { format?: 'quantum' | 'openai'; includeUsage?: boolean } = {}): StreamSummary {
  const named = (options.format ?? 'quantum') === 'quantum';
  const summary: StreamSummary = { reasoning: '', content: '', toolCalls: [], finishReason: undefined, usage: undefined, error: undefined, done: false, frames: 0 };
  expect(text.endsWith('\n\n'), 'the body ends with a complete frame').toBe(true);
  const frames = text.slice(0, -2).split('\n\n').filter((frame) => !frame.startsWith(':'));
  let envelope: { id: string; created: number; model: string } | undefined;
  let sawAnswer = false;
  let sawFinish = false;
  frames.forEach((frame, position) => {
    summary.frames++;
    const last = position === frames.length - 1;
    if (frame === 'data: [DONE]') {
      expect(last, '[DONE] is the last frame').toBe(true);
      expect(sawFinish, '[DONE] follows the finish chunk').toBe(true);
      summary.done = true;
      return;
    }
    const lines = frame.split('\n');
    const eventName = named ? lines[0]!.replace(/^event: /, '') : undefined;
    if (named) expect(lines).toHaveLength(2);
    else expect(lines).toHaveLength(1);
    const dataLine = lines.at(-1)!;
    expect(dataLine.startsWith('data: ')).toBe(true);
    const data = JSON.parse(dataLine.slice(6));
    if (data.error !== undefined) {
      if (named) expect(eventName).toBe('error');
      expect(last, 'an error frame is the last frame').toBe(true);
      expect(Object.keys(data.error)).toEqual(['message', 'type', 'param', 'code']);
      summary.error = data.error;
      return;
    }
    expect(data.id).toMatch(chunkId);
    expect(data.object).toBe('chat.completion.chunk');
    envelope ??= { id: data.id, created: data.created, model: data.model };
    expect({ id: data.id, created: data.created, model: data.model }).toEqual(envelope);
    if (data.choices.length === 0) {
      expect(options.includeUsage, 'a usage-only chunk only with include_usage').toBe(true);
      expect(sawFinish).toBe(true);
      expectWireUsage(data.usage);
      summary.usage = data.usage;
      return;
    }
    expect(sawFinish, 'nothing but usage and [DONE] after the finish chunk').toBe(false);
    expect(data.choices).toHaveLength(1);
    const [choice] = data.choices;
    expect(choice.index).toBe(0);
    const { role, ...delta } = choice.delta;
    if (position === 0) expect(role).toBe('assistant');
    else expect(role).toBeUndefined();
    if (choice.finish_reason !== null) {
      if (named) expect(eventName).toBe('message');
      expect(delta).toEqual({});
      expect(['stop', 'length', 'tool_calls']).toContain(choice.finish_reason);
      // With include_usage only the `choices: []` chunk after it carries usage (decisions §4.3).
      if (options.includeUsage) expect(data.usage, 'usage only on the choices: [] chunk').toBeUndefined();
      else {
        expectWireUsage(data.usage);
        summary.usage = data.usage;
      }
      summary.finishReason = choice.finish_reason;
      sawFinish = true;
      return;
    }
    if ('reasoning_content' in delta) {
      expect(sawAnswer, 'thought traces come before the answer').toBe(false);
      if (named) {
        expect(eventName).toBe('thought_trace');
        expect(data.delta).toBe(delta.reasoning_content);
      } else {
        expect(data.delta).toBeUndefined();
      }
      expect(Object.keys(delta)).toEqual(['reasoning_content']);
      expect(delta.reasoning_content).not.toBe('');
      summary.reasoning += delta.reasoning_content;
      return;
    }
    if (named) expect(eventName).toBe('message');
    sawAnswer = true;
    if ('content' in delta) {
      expect(Object.keys(delta)).toEqual(['content']);
      expect(delta.content).not.toBe('');
      summary.content += delta.content;
      return;
    }
    expect(Object.keys(delta)).toEqual(['tool_calls']);
    expect(delta.tool_calls).toHaveLength(1);
    const [call] = delta.tool_calls;
    if ('id' in call) {
      expect(call.index).toBe(summary.toolCalls.length);
      expect(call.id).toMatch(callId);
      expect(call).toEqual({ index: call.index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } });
      summary.toolCalls.push({ id: call.id, name: call.function.name, arguments: '' });
    } else {
      expect(Object.keys(call)).toEqual(['index', 'function']);
      expect(Object.keys(call.function)).toEqual(['arguments']);
      summary.toolCalls[call.index]!.arguments += call.function.arguments;
    }
  });
  if (summary.error === undefined) expect(summary.done, 'a successful stream ends with [DONE]').toBe(true);
  return summary;
}

/** Usage as our wire writes it (decisions §3): the four fields in order, the total their sum. */
function expectWireUsage(usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number }): void {
  expect(Object.keys(usage)).toEqual(['prompt_tokens', 'completion_tokens', 'total_tokens', 'completion_tokens_details']);
  expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
}
