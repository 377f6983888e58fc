import type { ChatClient, ChatCompletionCreateParams, ResponseObject } from '@quantum-chat/client';
import type { AssistantTurn } from './assistant-turn.js';
import { finishReasonOf, toResponsesRequest, toolCallsOf, usageOf } from './to-responses-request.js';

/** The message text of a response. */
const contentOf = (response: ResponseObject) => response.output.flatMap((item) => (item.type === 'message' ? item.content.map((part) => part.text) : [])).join('');

/**
 * Sends one turn through the Responses API (`POST /v1/responses`) and fills `turn` as it
 * arrives: reasoning summary, text and function-call arguments as the chat path shows them.
 * Throws as the client does; `runTurn` shows the failure.
 */
export async function runResponsesTurn(client: ChatClient, request: ChatCompletionCreateParams, stream: boolean, turn: AssistantTurn, signal: AbortSignal) {
  const body = toResponsesRequest(request);
  let response: ResponseObject;
  if (!stream) {
    response = await client.responses.create(body, { signal });
    for (const item of response.output) if (item.type === 'reasoning') turn.addReasoning(item.summary.map((part) => part.text).join(''));
    const content = contentOf(response);
    if (content !== '') turn.addContent(content);
  } else {
    const events = client.responses.stream(body, { signal });
    /** Output index → tool-call index, in the order the calls appear. */
    const callIndex = new Map<number, number>();
    for await (const event of events) {
      if (event.type === 'response.reasoning_summary_text.delta') turn.addReasoning(event.delta);
      else if (event.type === 'response.output_text.delta') turn.addContent(event.delta);
      else if (event.type === 'response.output_item.added' && event.item.type === 'function_call') {
        callIndex.set(event.output_index, callIndex.size);
        turn.addToolCallFragment({ index: callIndex.get(event.output_index)!, id: event.item.call_id, name: event.item.name, argumentsDelta: '' });
      } else if (event.type === 'response.function_call_arguments.delta') {
        turn.addToolCallFragment({ index: callIndex.get(event.output_index) ?? 0, argumentsDelta: event.delta });
      }
    }
    response = await events.finalResponse();
  }
  turn.finish(finishReasonOf(response), usageOf(response));
  return { kind: 'answer' as const, content: contentOf(response), toolCalls: toolCallsOf(response) };
}
