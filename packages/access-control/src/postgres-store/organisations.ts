import type { OrganisationStore } from '../service-store/index.js';
import { isUniqueViolation, limitToColumn, organisationFromRow } from '../sql-store/rows.js';
import { organisationChangeColumns, postgresDialect, updateStatement } from '../sql-store/statements.js';
import { tell, type PostgresContext } from './context.js';

/** @internal */
export function createPostgresOrganisations(context: PostgresContext): OrganisationStore {
  const { statements, query, one } = context;
  const getOrganisation = async (name: string) => {
    const row = await one(statements.selectOrganisation, [name]);
    return row === undefined ? undefined : organisationFromRow(row);
  };
  return {
    async createOrganisation({ name, plan, limits = {} }) {
      try {
        await query(statements.insertOrganisation, [
          name, plan, limitToColumn(limits.requestsPerMinute), limitToColumn(limits.tokensPerMinute), limitToColumn(limits.tokensPerDay), context.now(),
        ]);
      } catch (error) {
        if (isUniqueViolation(error)) throw new Error(`The organisation '${name}' already exists.`);
        throw error;
      }
      return (await getOrganisation(name))!;
    },
    getOrganisation,
    async listOrganisations() {
      return (await query(statements.listOrganisations)).map((row) => organisationFromRow(row));
    },
    async updateOrganisation(name, change) {
      const columns = organisationChangeColumns(change);
      const update = columns.length === 0 ? undefined : updateStatement(postgresDialect, 'organisations', 'name', columns, name);
      const row = update === undefined ? await one(statements.selectOrganisation, [name]) : await one(`${update.text} RETURNING *`, update.params);
      if (row === undefined) throw new Error(`There is no organisation named '${name}'.`);
      tell(context, { kind: 'organisation', name });
      return organisationFromRow(row);
    },
  };
}
