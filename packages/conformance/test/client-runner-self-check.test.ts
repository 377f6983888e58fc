import { loadClientFixtures, runClientConformance, type CollectedCompletion, type CollectedUsage } from '../src/index.js';

// The client runner must turn red on a client that assumes each network read holds whole
// frames and whole characters. Its failing cuttings are registered as known failures.

async function naiveCollect({ baseUrl, apiKey, request }: { baseUrl: string; apiKey: string; request: Record<string, unknown> }): Promise<CollectedCompletion> {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  let content = '';
  let finishReason: string | null = null;
  let usage: CollectedUsage | undefined;
  for await (const chunk of response.body!) {
    // Wrong on purpose: a fresh decoder per read, and frames assumed whole.
    for (const line of new TextDecoder().decode(chunk).split('\n')) {
      if (!line.startsWith('data: {')) continue;
      try {
        const payload = JSON.parse(line.slice('data: '.length));
        if (payload.usage) usage = { promptTokens: payload.usage.prompt_tokens, completionTokens: payload.usage.completion_tokens, totalTokens: payload.usage.total_tokens, reasoningTokens: payload.usage.completion_tokens_details.reasoning_tokens };
        const choice = payload.choices?.[0];
        content += choice?.delta?.content ?? '';
        finishReason = choice?.finish_reason ?? finishReason;
      } catch {
        // A cut frame: the naive client drops it.
      }
    }
  }
  return { reasoning: '', content, toolCalls: [], finishReason, ...(usage !== undefined ? { usage } : {}) };
}

const fixtures = loadClientFixtures().filter((fixture) => fixture.id === 'chat/text-stream');
runClientConformance('naive client (cut streams must fail)', naiveCollect, {
  fixtures,
  randomCuttings: 0,
  knownFailures: ['chat/text-stream bytewise', 'chat/text-stream awkward'],
});
