// Stored responses to rows and back, for both SQL stores.
import type { ConversationItem, ResponseObject, ResponseOutputItem, StoredInputItem, StoredResponse } from '@quantum-chat/core';
import type { Row } from './rows.js';

/**
 * What an output item becomes in a later conversation (`item_reference`): an answer is an
 * assistant message with `output_text` parts, a function call its call, reasoning its summary;
 * what only the answer had (status, annotations, log probabilities) is left behind. The same
 * items as the core's memory store gives (`outputItemToConversationItem`).
 *
 * @internal
 */
export function conversationItemFromOutput(item: ResponseOutputItem): ConversationItem {
  if (item.type === 'message') return { type: 'message', id: item.id, role: 'assistant', content: item.content.map((part) => ({ type: 'output_text', text: part.text })) };
  if (item.type === 'reasoning') return { type: 'reasoning', id: item.id, summary: item.summary.map((part) => ({ type: 'summary_text', text: part.text })) };
  return { type: 'function_call', id: item.id, call_id: item.call_id, name: item.name, arguments: item.arguments };
}

/** A response's items as rows, in the column order of `responseItemColumns`: its input items, then its output. @internal */
export function responseItemRows(record: StoredResponse): unknown[][] {
  const { response, owner, inputItems } = record;
  return [
    ...inputItems.map((item, position) => [response.id, 'input', position, item.id, owner, JSON.stringify(item)]),
    ...response.output.map((item, position) => [response.id, 'output', position, item.id, owner, JSON.stringify(item)]),
  ];
}

/** The values of `upsertResponse`. @internal */
export function responseRowValues(record: StoredResponse): unknown[] {
  const { response } = record;
  return [response.id, record.owner, JSON.stringify(response), response.previous_response_id, response.created_at, record.expiresAt];
}

/** @internal */
export const inputItemsFromRows = (rows: readonly Row[]): StoredInputItem[] => rows.map((row) => JSON.parse(String(row.item)) as StoredInputItem);

/** @internal */
export function storedResponseFromRows(row: Row, owner: string, items: readonly Row[]): StoredResponse {
  return { response: JSON.parse(String(row.response)) as ResponseObject, owner, inputItems: inputItemsFromRows(items), expiresAt: Number(row.expires_at) };
}

/** The items `findItems` read (latest response first: the earliest occurrence of an id is set last) by id: output items as the conversation items they become. @internal */
export function conversationItemsFromRows(rows: readonly Row[]): Map<string, ConversationItem> {
  const found = new Map<string, ConversationItem>();
  for (const row of rows) {
    const item = JSON.parse(String(row.item)) as StoredInputItem | ResponseOutputItem;
    found.set(String(row.id), row.kind === 'output' ? conversationItemFromOutput(item as ResponseOutputItem) : (item as ConversationItem));
  }
  return found;
}
