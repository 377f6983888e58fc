// Stored responses to rows and back, for both SQL stores.
import { outputItemToConversationItem, type ConversationItem, type ResponseObject, type ResponseOutputItem, type StoredInputItem, type StoredResponse } from '@quantum-chat/core/responses';
import type { Row } from './rows.js';

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

/**
 * The items `findItems` read (latest response first: the earliest occurrence of an id is set
 * last) by id: output items as the conversation items they become, as in the core's memory store.
 *
 * @internal
 */
export function conversationItemsFromRows(rows: readonly Row[]): Map<string, ConversationItem> {
  const found = new Map<string, ConversationItem>();
  for (const row of rows) {
    const item = JSON.parse(String(row.item)) as StoredInputItem | ResponseOutputItem;
    found.set(String(row.id), row.kind === 'output' ? outputItemToConversationItem(item as ResponseOutputItem) : (item as ConversationItem));
  }
  return found;
}
