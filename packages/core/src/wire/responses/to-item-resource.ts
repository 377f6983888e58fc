import type { StoredInputItem } from '../../contract/response-store.js';
import type { ItemResource, ItemResourceStatus } from '../../schemas/responses/item-resource.js';

const itemStatuses: ReadonlySet<unknown> = new Set<ItemResourceStatus>(['in_progress', 'completed', 'incomplete']);

/** The status a client sent with the item when it is one of OpenAI's three; `completed` otherwise (an input item is whole). */
function statusOf(item: { status?: string | null | undefined }): ItemResourceStatus {
  return itemStatuses.has(item.status) ? (item.status as ItemResourceStatus) : 'completed';
}

/** A message's text as parts: a string is one part; the role decides the part type, as OpenAI lists them. */
function messageContent(item: Extract<StoredInputItem, { type: 'message' }>): ItemResource & { type: 'message' } {
  const parts = typeof item.content === 'string' ? [{ type: 'input_text' as const, text: item.content }] : item.content;
  // Each written out whole: on Node 20 a literal that starts with a spread gets a hidden class per item.
  if (item.role === 'assistant') {
    const content = parts.map((part) => ({
      type: 'output_text' as const,
      text: part.text,
      annotations: 'annotations' in part && Array.isArray(part.annotations) ? part.annotations : [],
      logprobs: 'logprobs' in part && Array.isArray(part.logprobs) ? part.logprobs : [],
    }));
    return { type: 'message', id: item.id, status: statusOf(item), role: 'assistant', content };
  }
  return { type: 'message', id: item.id, status: statusOf(item), role: item.role, content: parts.map((part) => ({ type: 'input_text' as const, text: part.text })) };
}

/**
 * A stored input item as `GET /responses/{id}/input_items` lists it (decisions §10): OpenAI's
 * `ItemResource`. Stores keep the item as the request held it (a string content stays a
 * string), so the listing is the same from every store, and from rows written before it.
 */
export function toItemResource(item: StoredInputItem): ItemResource {
  switch (item.type) {
    case 'message':
      return messageContent(item);
    case 'function_call':
      return { type: 'function_call', id: item.id, status: statusOf(item), call_id: item.call_id, name: item.name, arguments: item.arguments };
    case 'function_call_output':
      return {
        type: 'function_call_output',
        id: item.id,
        status: statusOf(item),
        call_id: item.call_id,
        output: typeof item.output === 'string' ? item.output : item.output.map((part) => ({ type: 'input_text', text: part.text })),
      };
    case 'reasoning':
      return {
        type: 'reasoning',
        id: item.id,
        status: statusOf(item),
        summary: item.summary.map((part) => ({ type: 'summary_text', text: part.text })),
        ...(Array.isArray(item.content) ? { content: item.content.map((part) => ({ type: 'reasoning_text' as const, text: part.text })) } : {}),
        ...(typeof item.encrypted_content === 'string' ? { encrypted_content: item.encrypted_content } : {}),
      };
  }
}
