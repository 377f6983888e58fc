import { randomBase62 } from '@quantum-chat/core/host';
import type { ApiKeyStore } from '../service-store/index.js';
import { isUniqueViolation, keyFromRow, limitToColumn, organisationFromRow, type Row } from '../sql-store/rows.js';
import { keyChangeColumns, sqliteDialect, updateStatement } from '../sql-store/statements.js';
import type { SqlOp } from '../sqlite-executor.js';
import { tell, type SqliteContext } from './context.js';

async function requireKeyOrganisation<T>(work: Promise<T>, organisation: string): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new Error(`There is no organisation named '${organisation}'.`);
    throw error;
  }
}

/** @internal */
export function createSqliteKeys(context: SqliteContext): ApiKeyStore {
  const { executor, statements, one, all } = context;
  const getKey = async (id: string) => {
    const row = await one(statements.selectKey, [id]);
    return row === null ? undefined : keyFromRow(row);
  };
  return {
    async createKey(input) {
      const id = `key_${randomBase62(16)}`;
      const limits = input.limits ?? {};
      const insert = executor.execute([
        {
          sql: statements.insertKey,
          params: [
            id, input.organisation, input.kind, input.hash, input.prefix, input.last4, input.requireSignature ? 1 : 0, context.now(), input.expiresAt ?? null,
            input.allowedModels ? JSON.stringify(input.allowedModels) : null,
            limitToColumn(limits.requestsPerMinute), limitToColumn(limits.tokensPerMinute), limitToColumn(limits.tokensPerDay),
          ],
          mode: 'run',
        },
      ]);
      try {
        await requireKeyOrganisation(insert, input.organisation);
      } catch (error) {
        if (isUniqueViolation(error)) throw new Error('A key with this hash already exists.');
        throw error;
      }
      return (await getKey(id))!;
    },
    getKey,
    async findKeyByHash(hash) {
      const row = await one(statements.selectKeyByHash, [hash]);
      return row === null ? undefined : { key: keyFromRow(row), organisation: organisationFromRow(row, 'o_') };
    },
    async listKeys(filter = {}) {
      const rows = filter.organisation === undefined ? await all(statements.listKeys) : await all(statements.listKeysOf, [filter.organisation]);
      return rows.map(keyFromRow);
    },
    async revokeKey(id) {
      const [, found] = await executor.execute(
        [
          { sql: statements.revokeKey, params: [context.now(), id], mode: 'run' },
          { sql: statements.selectKeyHash, params: [id], mode: 'get' },
        ],
        { transaction: true },
      );
      if (found === null) return false;
      tell(context, { kind: 'key', hash: String((found as Row).hash) });
      return true;
    },
    async updateKey(id, change) {
      const columns = keyChangeColumns(change);
      const ops: SqlOp[] = [];
      if (columns.length > 0) {
        const { text, params } = updateStatement(sqliteDialect, 'api_keys', 'id', columns, id);
        ops.push({ sql: text, params, mode: 'run' });
      }
      ops.push({ sql: statements.selectKey, params: [id], mode: 'get' });
      const row = (await executor.execute(ops, { transaction: true })).at(-1) as Row | null;
      if (row === null) return undefined;
      const key = keyFromRow(row);
      tell(context, { kind: 'key', hash: key.hash });
      return key;
    },
  };
}
