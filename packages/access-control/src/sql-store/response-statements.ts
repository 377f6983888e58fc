// The SQL of the stored responses (decisions §10), shared by SQLite and PostgreSQL. Every
// read names the owner and skips expired rows; a response's items go with it (ON DELETE CASCADE).
import type { SqlDialect } from './statements.js';

/** The columns of an item row, in the order `responseItemRows` gives their values. @internal */
export const responseItemColumns = ['response_id', 'kind', 'position', 'id', 'owner', 'item'] as const;

/** The largest position: "no `after`" reads from the far end when the order is `desc`. */
const lastPosition = 2_147_483_647;

/**
 * The statements both SQL response stores send; parameters are numbered in order of
 * appearance, a value used twice is passed twice.
 *
 * @internal
 */
export function responseStatements(dialect: SqlDialect) {
  const p = (index: number) => dialect.placeholder(index);
  /** The page after an item (by its first position) or from the start; an unknown `after` compares with NULL: an empty page. */
  const inputPage = (comparison: '>' | '<', order: 'ASC' | 'DESC', start: number) =>
    `SELECT item FROM response_items WHERE response_id = ${p(1)} AND kind = 'input'
       AND position ${comparison} (CASE WHEN CAST(${p(2)} AS TEXT) IS NULL THEN ${start}
         ELSE (SELECT min(position) FROM response_items WHERE response_id = ${p(3)} AND kind = 'input' AND id = ${p(4)}) END)
     ORDER BY position ${order} LIMIT ${p(5)}`;
  return {
    /** Params: id, owner, response, previous_response_id, created_at, expires_at. */
    upsertResponse: `INSERT INTO responses (id, owner, response, previous_response_id, created_at, expires_at) VALUES (${[1, 2, 3, 4, 5, 6].map(p).join(', ')})
      ON CONFLICT (id) DO UPDATE SET response = excluded.response, previous_response_id = excluded.previous_response_id, expires_at = excluded.expires_at`,
    /** Params: response id. A save replaces every item: a background response's output arrives when it ends. */
    deleteItems: `DELETE FROM response_items WHERE response_id = ${p(1)}`,
    /** Params: id, owner, now. */
    selectResponse: `SELECT response, expires_at FROM responses WHERE id = ${p(1)} AND owner = ${p(2)} AND expires_at > ${p(3)}`,
    /** Params: id, owner, now. */
    responseExists: `SELECT 1 AS found FROM responses WHERE id = ${p(1)} AND owner = ${p(2)} AND expires_at > ${p(3)}`,
    /** Params: response id. */
    selectInputItems: `SELECT item FROM response_items WHERE response_id = ${p(1)} AND kind = 'input' ORDER BY position`,
    /** Params: id, owner, now. */
    deleteResponse: `DELETE FROM responses WHERE id = ${p(1)} AND owner = ${p(2)} AND expires_at > ${p(3)}`,
    /**
     * Params: owner, the ids as a JSON array, now. Latest response first, so that when an id
     * occurs in several responses (an item sent back with its id) the first one's item, read
     * last, wins: the item where the id appeared first.
     */
    findItems: `SELECT i.id, i.kind, i.item FROM response_items i JOIN responses r ON r.id = i.response_id
      WHERE i.owner = ${p(1)} AND i.id IN (${dialect.jsonTextElements(p(2))}) AND r.expires_at > ${p(3)}
      ORDER BY r.created_at DESC, r.id DESC, i.kind DESC, i.position DESC`,
    /** Params: response id, after (or NULL), response id, after, limit. */
    inputPageAscending: inputPage('>', 'ASC', -1),
    /** Params: response id, after (or NULL), response id, after, limit. */
    inputPageDescending: inputPage('<', 'DESC', lastPosition),
    /** Params: now, batch size. Items go with their responses. */
    purgeExpired: `DELETE FROM responses WHERE id IN (SELECT id FROM responses WHERE expires_at <= ${p(1)} ORDER BY expires_at LIMIT ${p(2)})`,
  };
}

