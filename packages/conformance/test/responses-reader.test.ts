import { readResponseStream, type ResponseObject } from '@quantum-chat/core/dialect';
import { loadResponsesStreamFixtures, runClientConformance, type CollectedCompletion } from '../src/index.js';

// The core's reader of Responses streams (`readResponseStream` on `@quantum-chat/core/dialect`)
// rebuilds every Responses stream fixture, whole and cut at any byte, into its final response;
// what that response amounts to must be the fixture's `.expected.json`.

/** What a final `Response` amounts to, in the terms every reader of streams is compared in. */
function collectedOf(response: ResponseObject): CollectedCompletion {
  let reasoning = '';
  let content = '';
  const toolCalls: { id: string; name: string; arguments: string }[] = [];
  for (const item of response.output) {
    if (item.type === 'reasoning') reasoning += item.summary.map((part) => part.text).join('');
    else if (item.type === 'message') content += item.content.map((part) => part.text).join('');
    else toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
  }
  const finishReason = response.status === 'incomplete' ? 'length' : toolCalls.length > 0 ? 'tool_calls' : 'stop';
  const usage = response.usage;
  return {
    reasoning,
    content,
    toolCalls,
    finishReason,
    ...(usage === null
      ? {}
      : { usage: { promptTokens: usage.input_tokens, completionTokens: usage.output_tokens, totalTokens: usage.total_tokens, reasoningTokens: usage.output_tokens_details.reasoning_tokens } }),
  };
}

runClientConformance(
  'core Responses reader',
  async ({ baseUrl, apiKey, request }) => {
    const response = await fetch(`${baseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ ...request, stream: true }),
    });
    if (!response.ok || response.body === null) return { error: { status: response.status } };
    return collectedOf(await readResponseStream(response.body));
  },
  { fixtures: loadResponsesStreamFixtures() },
);
