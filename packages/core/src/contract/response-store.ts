import type { ConversationItem } from '../schemas/responses/input-item.js';
import type { ResponseObject } from '../schemas/responses/response-object.js';

/** An input item as kept: the request's item (references resolved) with the id it is listed and referenced by. */
export type StoredInputItem = ConversationItem & { id: string };

/**
 * One stored response of the Responses API (decisions §10): the `Response` object as last
 * written, whose organisation and key kind may read it, and the request's own input items.
 * The conversation before it is found by following `response.previous_response_id`.
 */
export interface StoredResponse {
  response: ResponseObject;
  /** Who may read it: the creator's organisation and key kind (`org_1:live`), as for resumable streams. */
  owner: string;
  inputItems: readonly StoredInputItem[];
  /** Milliseconds since the epoch after which the response is forgotten (the store's retention). */
  expiresAt: number;
}

/** A page of a response's input items, in the order asked for. */
export interface InputItemPage {
  items: StoredInputItem[];
  hasMore: boolean;
}

export interface InputItemPageRequest {
  /** Start after the item with this id (exclusive). */
  after?: string | undefined;
  limit: number;
  order: 'asc' | 'desc';
}

/**
 * Where stored responses live: in memory, SQLite or PostgreSQL. Every read is scoped by owner,
 * and a response that is unknown, another owner's, deleted or expired reads as `undefined`
 * (the handler answers 404 `response_not_found` for all of them alike).
 */
export interface ResponseStore {
  /** Inserts or replaces a response (a background response is written when queued and again when it ends). */
  save(record: StoredResponse): Promise<void>;
  get(id: string, owner: string): Promise<StoredResponse | undefined>;
  /** Forgets a response and its items; false when there was nothing the owner could delete. */
  delete(id: string, owner: string): Promise<boolean>;
  /**
   * The items with these ids among the owner's stored responses (input items, and output
   * items as the conversation items they become), for `item_reference`.
   */
  findItems(ids: readonly string[], owner: string): Promise<Map<string, ConversationItem>>;
  listInputItems(id: string, owner: string, page: InputItemPageRequest): Promise<InputItemPage | undefined>;
  /** Releases connections and timers. */
  close?(): Promise<void>;
}
