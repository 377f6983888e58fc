import type { InputItemPage, InputItemPageRequest, ResponseStore, StoredResponse } from '../../contract/response-store.js';
import type { ConversationItem } from '../../schemas/responses/input-item.js';
import type { ResponseOutputItem } from '../../schemas/responses/response-object.js';

export interface MemoryResponseStoreOptions {
  /** Responses kept at most; past it the oldest are forgotten first. 10 000 by default. */
  maxResponses?: number;
  /** Milliseconds since the epoch; injected by tests. */
  now?: () => number;
}

/** An output item as the conversation item it becomes when a later request names it (decisions §10). */
export function outputItemToConversationItem(item: ResponseOutputItem): ConversationItem {
  if (item.type === 'message') {
    return { type: 'message', id: item.id, role: 'assistant', content: item.content.map((part) => ({ type: 'output_text' as const, text: part.text })) } as ConversationItem;
  }
  if (item.type === 'reasoning') return { type: 'reasoning', id: item.id, summary: item.summary.map((part) => ({ type: 'summary_text' as const, text: part.text })) } as ConversationItem;
  return { type: 'function_call', id: item.id, call_id: item.call_id, name: item.name, arguments: item.arguments } as ConversationItem;
}

/**
 * The response store of one process (the default): bounded in count, each response forgotten
 * at its `expiresAt` (expired ones are pruned as new ones arrive). Nothing survives a restart
 * and nothing is shared between instances: the ready server uses SQLite or PostgreSQL for that.
 */
export function createMemoryResponseStore(options: MemoryResponseStoreOptions = {}): ResponseStore {
  const maxResponses = options.maxResponses ?? 10_000;
  const now = options.now ?? Date.now;
  /** In the order of their first save: the first is the oldest. */
  const records = new Map<string, StoredResponse>();

  const live = (id: string, owner: string): StoredResponse | undefined => {
    const record = records.get(id);
    if (record === undefined) return undefined;
    if (record.expiresAt <= now()) {
      records.delete(id);
      return undefined;
    }
    return record.owner === owner ? record : undefined;
  };

  /** Drops expired responses from the oldest on (most expire in save order), then the oldest past the cap. */
  const prune = (): void => {
    const time = now();
    for (const [id, record] of records) {
      if (record.expiresAt > time) break;
      records.delete(id);
    }
    while (records.size > maxResponses) records.delete(records.keys().next().value!);
  };

  return {
    save(record) {
      // Structured copies: a caller's later changes never reach what is stored.
      records.set(record.response.id, structuredClone(record));
      prune();
      return Promise.resolve();
    },
    get(id, owner) {
      const record = live(id, owner);
      return Promise.resolve(record === undefined ? undefined : structuredClone(record));
    },
    delete(id, owner) {
      return Promise.resolve(live(id, owner) !== undefined && records.delete(id));
    },
    findItems(ids, owner) {
      const wanted = new Set(ids);
      const found = new Map<string, ConversationItem>();
      for (const record of records.values()) {
        if (found.size === wanted.size) break;
        if (record.owner !== owner || record.expiresAt <= now()) continue;
        for (const item of record.inputItems) if (wanted.has(item.id)) found.set(item.id, structuredClone(item));
        for (const item of record.response.output) if (wanted.has(item.id)) found.set(item.id, outputItemToConversationItem(item));
      }
      return Promise.resolve(found);
    },
    listInputItems(id, owner, page: InputItemPageRequest): Promise<InputItemPage | undefined> {
      const record = live(id, owner);
      if (record === undefined) return Promise.resolve(undefined);
      const ordered = page.order === 'asc' ? record.inputItems : [...record.inputItems].reverse();
      let start = 0;
      if (page.after !== undefined) {
        const at = ordered.findIndex((item) => item.id === page.after);
        start = at === -1 ? ordered.length : at + 1;
      }
      const items = ordered.slice(start, start + page.limit).map((item) => structuredClone(item));
      return Promise.resolve({ items, hasMore: start + page.limit < ordered.length });
    },
  };
}
