import type { OrganisationStore } from '../service-store/index.js';
import { isUniqueViolation, limitToColumn, organisationFromRow, type Row } from '../sql-store/rows.js';
import { organisationChangeColumns, sqliteDialect, updateStatement } from '../sql-store/statements.js';
import type { SqlOp } from '../sqlite-executor.js';
import { tell, type SqliteContext } from './context.js';

/** @internal */
export function createSqliteOrganisations(context: SqliteContext): OrganisationStore {
  const { executor, statements, one, all } = context;
  const getOrganisation = async (name: string) => {
    const row = await one(statements.selectOrganisation, [name]);
    return row === null ? undefined : organisationFromRow(row);
  };
  return {
    async createOrganisation({ name, plan, limits = {} }) {
      try {
        await executor.execute([
          {
            sql: statements.insertOrganisation,
            params: [name, plan, limitToColumn(limits.requestsPerMinute), limitToColumn(limits.tokensPerMinute), limitToColumn(limits.tokensPerDay), context.now()],
            mode: 'run',
          },
        ]);
      } catch (error) {
        if (isUniqueViolation(error)) throw new Error(`The organisation '${name}' already exists.`);
        throw error;
      }
      return (await getOrganisation(name))!;
    },
    getOrganisation,
    async listOrganisations() {
      return (await all(statements.listOrganisations)).map((row) => organisationFromRow(row));
    },
    async updateOrganisation(name, change) {
      const columns = organisationChangeColumns(change);
      const ops: SqlOp[] = [];
      if (columns.length > 0) {
        const { text, params } = updateStatement(sqliteDialect, 'organisations', 'name', columns, name);
        ops.push({ sql: text, params, mode: 'run' });
      }
      ops.push({ sql: statements.selectOrganisation, params: [name], mode: 'get' });
      const row = (await executor.execute(ops, { transaction: true })).at(-1) as Row | null;
      if (row === null) throw new Error(`There is no organisation named '${name}'.`);
      tell(context, { kind: 'organisation', name });
      return organisationFromRow(row);
    },
  };
}
