import { randomBase62 } from '@quantum-chat/core/host';
import type { ApiKeyStore } from '../service-store/index.js';
import { isUniqueViolation, keyFromRow, limitToColumn, organisationFromRow } from '../sql-store/rows.js';
import { keyChangeColumns, postgresDialect, updateStatement } from '../sql-store/statements.js';
import { tell, type PostgresContext } from './context.js';

/** @internal */
export function createPostgresKeys(context: PostgresContext): ApiKeyStore {
  const { statements, query, one } = context;
  const getKey = async (id: string) => {
    const row = await one(statements.selectKey, [id]);
    return row === undefined ? undefined : keyFromRow(row);
  };
  return {
    async createKey(input) {
      const id = `key_${randomBase62(16)}`;
      const limits = input.limits ?? {};
      try {
        await query(statements.insertKey, [
          id, input.organisation, input.kind, input.hash, input.prefix, input.last4, input.requireSignature ?? false, context.now(), input.expiresAt ?? null,
          input.allowedModels ? JSON.stringify(input.allowedModels) : null,
          limitToColumn(limits.requestsPerMinute), limitToColumn(limits.tokensPerMinute), limitToColumn(limits.tokensPerDay),
        ]);
      } catch (error) {
        if ((error as { code?: string }).code === '23503') throw new Error(`There is no organisation named '${input.organisation}'.`);
        if (isUniqueViolation(error)) throw new Error('A key with this hash already exists.');
        throw error;
      }
      return (await getKey(id))!;
    },
    getKey,
    async findKeyByHash(hash) {
      const row = await one(statements.selectKeyByHash, [hash]);
      return row === undefined ? undefined : { key: keyFromRow(row), organisation: organisationFromRow(row, 'o_') };
    },
    async listKeys(filter = {}) {
      const rows = filter.organisation === undefined ? await query(statements.listKeys) : await query(statements.listKeysOf, [filter.organisation]);
      return rows.map(keyFromRow);
    },
    async revokeKey(id) {
      await query(statements.revokeKey, [context.now(), id]);
      const found = await one(statements.selectKeyHash, [id]);
      if (found === undefined) return false;
      tell(context, { kind: 'key', hash: String(found.hash) });
      return true;
    },
    async updateKey(id, change) {
      const columns = keyChangeColumns(change);
      const update = columns.length === 0 ? undefined : updateStatement(postgresDialect, 'api_keys', 'id', columns, id);
      const row = update === undefined ? await one(statements.selectKey, [id]) : await one(`${update.text} RETURNING *`, update.params);
      if (row === undefined) return undefined;
      const key = keyFromRow(row);
      tell(context, { kind: 'key', hash: key.hash });
      return key;
    },
  };
}
