import { QuantumChatError, type ChatEngineRequest } from '@quantum-chat/core';
import { runClientConformance, type CollectedCompletion, type CollectedToolCall } from '@quantum-chat/conformance';
import { createUpstreamEngine } from '../src/index.js';

/**
 * Every stream fixture of the conformance package (ours in both formats, and other servers'
 * dialects), cut at byte boundaries, read by the upstream engine as its upstream's answer:
 * the engine must rebuild what the client rebuilds, restated the ways it is meant to (a leading
 * `<think>` block is reasoning, finish reasons and tool-call ids are ours, a failed stream is
 * our own error carrying the upstream's message).
 */
runClientConformance(
  'upstream engine',
  async ({ baseUrl, apiKey, request }): Promise<CollectedCompletion> => {
    const engine = createUpstreamEngine({ baseUrl, apiKey, model: String(request.model) });
    const engineRequest: ChatEngineRequest = {
      model: 'quantum-reasoner',
      messages: [{ role: 'user', content: 'Hello!' }],
      tools: [],
      toolChoice: 'none',
      parallelToolCalls: true,
      temperature: 0.7,
      maxTokens: 4096,
      reasoning: true,
    };
    let reasoning = '';
    let content = '';
    const toolCalls = new Map<number, CollectedToolCall>();
    try {
      for await (const event of engine.generate(engineRequest, { signal: new AbortController().signal, requestId: 'conformance' })) {
        if (event.type === 'reasoning') reasoning += event.text;
        else if (event.type === 'content') content += event.text;
        else if (event.type === 'tool-call') {
          const call = toolCalls.get(event.index) ?? { name: event.name ?? '', arguments: '' };
          call.arguments += event.argumentsDelta;
          toolCalls.set(event.index, call);
        } else {
          const { promptTokens, completionTokens, reasoningTokens } = event.usage;
          return {
            reasoning,
            content,
            toolCalls: [...toolCalls.values()],
            finishReason: event.reason,
            usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, reasoningTokens },
          };
        }
      }
      throw new Error('the engine ended without a finish event');
    } catch (error) {
      if (!QuantumChatError.isInstance(error)) throw error;
      return { error: { code: error.code, type: error.type, message: error.message } };
    }
  },
  { traits: { splitsThinkTags: true, ownFinishReasons: true, ownToolCallIds: true, ownErrors: true } },
);
