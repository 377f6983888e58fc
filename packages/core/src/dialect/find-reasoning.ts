/**
 * The reasoning text of a delta or message, whichever field the server used: `reasoning_content`
 * (ours, DeepSeek, llama.cpp, older vLLM) or `reasoning` (vLLM, Ollama, OpenRouter). The first
 * non-empty one counts: some servers send both with the same text, and some send an empty
 * `reasoning_content` beside the real `reasoning`.
 *
 * @example
 * findReasoning({ reasoning_content: '', reasoning: 'Hmm.' }); // 'Hmm.'
 */
export function findReasoning(delta: { reasoning_content?: unknown; reasoning?: unknown }): string | undefined {
  const first = delta.reasoning_content;
  if (typeof first === 'string' && first !== '') return first;
  const second = delta.reasoning;
  return typeof second === 'string' && second !== '' ? second : undefined;
}
