import type { CreateResponseRequest, InputItem } from '@quantum-chat/core/dialect';

/**
 * The body of `POST /responses`, without `stream` (the method decides). Fields the types do
 * not list are sent as given: our server ignores unknown fields and names them in
 * `x-quantum-ignored-params`.
 */
export type ResponseCreateParams = Omit<CreateResponseRequest, 'stream'> & { [field: string]: unknown };

/** What `DELETE /responses/{id}` answers. */
export interface ResponseDeleted {
  id: string;
  object: 'response.deleted';
  deleted: true;
}

/** A page of `GET /responses/{id}/input_items`: the items the response was made from, in order. */
export interface ResponseInputItemList {
  object: 'list';
  data: (InputItem & { id?: string })[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** Which page of input items to list: as in the `openai` SDK (`after` an item id, `limit` 1–100, `order`). */
export interface InputItemsPage {
  after?: string;
  limit?: number;
  order?: 'asc' | 'desc';
}

