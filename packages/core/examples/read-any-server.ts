import { createDialectReader, createToolCallAccumulator } from '@quantum-chat/core/dialect';
import { createSseDecoder } from '@quantum-chat/core/sse';

// What an OpenAI-compatible server streamed (a vLLM-style reasoning field beside an empty
// reasoning_content, a tool call without index or id); in practice, the bytes of a response body.
const body = [
  'data: {"choices":[{"index":0,"delta":{"reasoning_content":"","reasoning":"Check the weather."}}]}',
  'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Oslo"}}}]}}]}',
  'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}',
  'data: [DONE]',
].join('\n\n') + '\n\n';

let reasoning = '';
let finishReason = '';
const toolCalls = createToolCallAccumulator();
const reader = createDialectReader({
  reasoning: (text) => void (reasoning += text),
  content: (text) => void process.stdout.write(text),
  toolCall: (call, argumentsDelta, id, name) => toolCalls.add({ index: call.index, id, function: { name, arguments: argumentsDelta } }),
  usage: () => undefined,
  finish: (reason) => void (finishReason = reason),
  error(error): never {
    throw new Error(`The server failed: ${error.message}`);
  },
  malformed(problem): never {
    throw new Error(`The server sent ${problem}.`);
  },
});
const decoder = createSseDecoder({ onEvent: (event) => reader.read(event) });
decoder.feed(new TextEncoder().encode(body));
decoder.end();

console.log({ reasoning, finishReason, done: reader.done(), toolCalls: toolCalls.calls().map((call) => call.function) });
// { reasoning: 'Check the weather.', finishReason: 'tool_calls', done: true, toolCalls: [ { name: 'get_weather', arguments: '{"city":"Oslo"}' } ] }
