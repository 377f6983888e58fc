import { APIUserAbortError, type ChatClient, type ChatCompletionCreateParams, type ToolCall } from '@quantum-chat/client';
import type { AssistantTurn } from './assistant-turn.js';
import { describeError } from './describe-error.js';
import { runResponsesTurn } from './run-responses-turn.js';

/** How a turn ended: with an answer (maybe tool calls), stopped by the user, or failed. */
export type TurnOutcome = { kind: 'answer'; content: string; toolCalls: ToolCall[] } | { kind: 'stopped' } | { kind: 'failed' };

/** Which API a turn goes through: chat completions, or the Responses API. */
export type PlaygroundApi = 'chat' | 'responses';

/**
 * Sends one request and fills `turn` as the answer arrives: streamed piece by piece, or
 * whole. Never throws: failures are shown in the turn with their type and message.
 *
 * @example
 * const outcome = await runTurn(client, { model, messages }, true, turn, retry, controller.signal);
 */
export async function runTurn(client: ChatClient, request: ChatCompletionCreateParams, stream: boolean, turn: AssistantTurn, retry: () => void, signal: AbortSignal, api: PlaygroundApi = 'chat'): Promise<TurnOutcome> {
  try {
    if (api === 'responses') return await runResponsesTurn(client, request, stream, turn, signal);
    if (!stream) {
      const completion = await client.chat.completions.create(request, { signal });
      const choice = completion.choices[0];
      const message = choice?.message;
      if (message?.reasoning_content) turn.addReasoning(message.reasoning_content);
      if (message?.content) turn.addContent(message.content);
      turn.finish(choice?.finish_reason ?? null, completion.usage ?? null);
      return { kind: 'answer', content: message?.content ?? '', toolCalls: message?.tool_calls ?? [] };
    }
    // Resumable: a dropped connection (a network change, a sleeping laptop) is re-opened where it was.
    const events = client.chat.completions.stream(
      { ...request, stream_options: { ...request.stream_options, resumable: true } },
      { signal, onResume: ({ state }) => turn.reconnecting(state === 'reconnecting') },
    );
    for await (const event of events) {
      if (event.type === 'reasoning') turn.addReasoning(event.text);
      else if (event.type === 'content') turn.addContent(event.text);
      else if (event.type === 'tool-call-delta') turn.addToolCallFragment(event);
    }
    const collected = await events.collect();
    turn.finish(collected.finishReason, collected.usage);
    return { kind: 'answer', content: collected.content, toolCalls: collected.toolCalls };
  } catch (error) {
    turn.reconnecting(false);
    if (APIUserAbortError.isInstance(error)) {
      turn.stopped();
      return { kind: 'stopped' };
    }
    turn.fail(describeError(error), retry);
    return { kind: 'failed' };
  }
}
