/** What a raw `for await` over an openai SDK stream rebuilt. */
export interface CollectedStream {
  chunks: any[];
  content: string;
  reasoning: string;
  finishReason: string | undefined;
  /** The `usage` of the chunk that carried `finish_reason`. */
  finishUsage: any;
  /** The `usage` of the last chunk. */
  lastUsage: any;
  toolCalls: { id: string; name: string; arguments: string }[];
}

/**
 * Reads an openai SDK stream the way its README shows (`for await (const chunk of stream)`),
 * merging content, `reasoning_content` and tool-call fragments by index.
 *
 * @example
 * const collected = await collectChunks(await client.chat.completions.create({ ...body, stream: true }));
 */
export async function collectChunks(stream: AsyncIterable<any>): Promise<CollectedStream> {
  const collected: CollectedStream = { chunks: [], content: '', reasoning: '', finishReason: undefined, finishUsage: undefined, lastUsage: undefined, toolCalls: [] };
  for await (const chunk of stream) {
    collected.chunks.push(chunk);
    const choice = chunk.choices[0];
    collected.lastUsage = chunk.usage ?? undefined;
    if (choice === undefined) continue;
    collected.content += choice.delta?.content ?? '';
    collected.reasoning += choice.delta?.reasoning_content ?? '';
    for (const fragment of choice.delta?.tool_calls ?? []) {
      const call = (collected.toolCalls[fragment.index] ??= { id: '', name: '', arguments: '' });
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name = fragment.function.name;
      call.arguments += fragment.function?.arguments ?? '';
    }
    if (choice.finish_reason) {
      collected.finishReason = choice.finish_reason;
      collected.finishUsage = chunk.usage;
    }
  }
  return collected;
}

/** Every item an SDK yielded, without interpreting it. */
export async function collectItems(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const items: unknown[] = [];
  for await (const item of stream) items.push(item);
  return items;
}
