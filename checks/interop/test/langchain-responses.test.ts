/**
 * LangChain's `ChatOpenAI` with `useResponsesApi: true` against the real server over HTTP:
 * `invoke`, `stream`, and a tool round trip through `bindTools`.
 */
import { AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { question, weatherQuestion, weatherResult, weatherTool } from './support/fixtures.js';
import { startInteropServer, type InteropServer } from './support/interop-server.js';
import { createCompatRecorder } from './support/compat-recorder.js';
import { langchainClient, langchainVersion } from './support/langchain-client.js';

const compat = createCompatRecorder('langchain-responses');
let server: InteropServer;

beforeAll(async () => {
  server = await startInteropServer();
});

afterAll(async () => {
  compat.flush();
  await server?.close();
});

const prove = (feature: string, detail?: string) => compat.prove({ client: langchainClient, version: langchainVersion, format: 'any', feature: `responses: ${feature}`, outcome: 'works', ...(detail ? { detail } : {}) });

const chatModel = (model: string) => new ChatOpenAI({ model, apiKey: server.testKey, maxRetries: 0, useResponsesApi: true, configuration: { baseURL: `${server.origin}/v1` } });

async function streamAll(stream: AsyncIterable<AIMessageChunk>): Promise<AIMessageChunk> {
  let merged: AIMessageChunk | undefined;
  for await (const chunk of stream) merged = merged === undefined ? chunk : merged.concat(chunk);
  if (merged === undefined) throw new Error('The stream yielded nothing.');
  return merged;
}

/** The message's text, whether LangChain gives a string or content blocks. */
const textOf = (content: unknown) => (typeof content === 'string' ? content : (content as { type: string; text?: string }[]).filter((part) => part.type === 'text').map((part) => part.text).join(''));

describe(`@langchain/openai ${langchainVersion} with useResponsesApi`, () => {
  it('should invoke and stream the same answer, with usage', async () => {
    const message = await chatModel('quantum-flash').invoke(question);
    const text = textOf(message.content);
    expect(text.length).toBeGreaterThan(0);
    expect(message.response_metadata).toMatchObject({ model: 'quantum-flash', status: 'completed' });
    expect(message.usage_metadata?.total_tokens).toBeGreaterThan(0);
    const merged = await streamAll(await chatModel('quantum-flash').stream(question));
    expect(textOf(merged.content)).toBe(text);
    prove('create', '`ChatOpenAI({ useResponsesApi: true })`');
    prove('stream');
  });

  it('should call the tool through bindTools (invoke and stream) and answer from its result', async () => {
    const bound = chatModel('quantum-flash').bindTools([weatherTool]);
    const message = await bound.invoke(weatherQuestion);
    expect(message.tool_calls?.map((call) => [call.name, call.args])).toEqual([['get_weather', { city: 'Paris' }]]);
    const merged = await streamAll(await bound.stream(weatherQuestion));
    expect(merged.tool_calls?.map((call) => [call.name, call.args])).toEqual([['get_weather', { city: 'Paris' }]]);
    const answer = await bound.invoke([new HumanMessage(weatherQuestion), message, new ToolMessage({ tool_call_id: message.tool_calls![0]!.id!, content: weatherResult })]);
    expect(answer.tool_calls ?? []).toEqual([]);
    expect(textOf(answer.content)).toMatch(/18|cloudy/);
    prove('tools', '`bindTools`, invoke and stream');
  });
});
