import { parseArgs } from 'node:util';
import type { OrganisationObject } from '../admin/admin-schemas.js';
import type { AdminActor, AdminService } from '../admin/admin-service.js';
import type { Command, CommandContext } from './command.js';
import { withAdminService } from './command-admin.js';
import { CommandUsageError, limitOptions, limitParseOptions, limitsFromOptions, wireOptionNames } from './command-arguments.js';
import { storeOptions, storeOptionsUsage } from './command-store.js';
import { formatTable } from './format-table.js';

const usage = `Usage:
  quantum-chat orgs list
  quantum-chat orgs create <name> [--plan free|elite] [--requests-per-minute N] [--tokens-per-minute N]
                                  [--tokens-per-day N]
  quantum-chat orgs set-limits <name> [--plan free|elite] [--requests-per-minute N]
                                      [--tokens-per-minute N] [--tokens-per-day N]

Shows and changes organisations, through the same code as the admin API; every change is
written to the audit log (\`quantum-chat audit\`). Limits default to the plan's (free: 60
requests/min, 100,000 tokens/min, 1,000,000 tokens/day; elite: 600 requests/min, 2,000,000
tokens/min, no daily cap). A value N is a whole number, \`none\` (no limit) or \`default\` (the
plan's). Running servers apply a change at the next request; test keys get the same limits,
counted apart from live keys.

Options:
  --plan <free|elite>         The plan (default free for a new organisation)
  --requests-per-minute <N>   Override requests per minute
  --tokens-per-minute <N>     Override tokens per minute (prompt + max_tokens are reserved)
  --tokens-per-day <N>        Override tokens per day (429 insufficient_quota when used up)
${storeOptionsUsage}
`;

const show = (value: number | null) => (value === null ? 'none' : String(value));

function describe(organisation: OrganisationObject): string[] {
  const mark = (field: keyof OrganisationObject['limits']) => (organisation.limit_overrides[field] !== undefined ? ' *' : '');
  const cell = (field: keyof OrganisationObject['limits']) => show(organisation.limits[field]) + mark(field);
  return [organisation.name, organisation.plan, cell('requests_per_minute'), cell('tokens_per_minute'), cell('tokens_per_day')];
}

const header = ['ORGANISATION', 'PLAN', 'REQUESTS/MIN', 'TOKENS/MIN', 'TOKENS/DAY'];
const table = (organisations: OrganisationObject[]) => formatTable([header, ...organisations.map(describe)]) + '(* overrides the plan default)\n';

async function list(admin: AdminService, context: CommandContext): Promise<number> {
  const organisations = await admin.listOrganisations();
  context.stdout.write(organisations.length === 0 ? 'No organisations.\n' : table(organisations));
  return 0;
}

async function create(admin: AdminService, by: AdminActor, name: string, values: Record<string, unknown>, context: CommandContext): Promise<number> {
  const limits = limitsFromOptions(values, ['none']);
  const created = await admin.createOrganisation({ name, ...(values.plan !== undefined ? { plan: values.plan } : {}), ...(limits !== undefined ? { limits } : {}) }, by);
  context.stdout.write(table([created]));
  return 0;
}

async function setLimits(admin: AdminService, by: AdminActor, name: string, values: Record<string, unknown>, context: CommandContext): Promise<number> {
  const limits = limitsFromOptions(values, ['none', 'default']);
  try {
    const updated = await admin.updateOrganisation(name, { ...(values.plan !== undefined ? { plan: values.plan } : {}), ...(limits !== undefined ? { limits } : {}) }, by);
    context.stdout.write(table([updated]));
    return 0;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'organisation_not_found') throw error;
    context.stderr.write(`quantum-chat orgs: there is no organisation '${name}' (\`quantum-chat orgs create ${name}\` or \`quantum-chat keys create --org ${name}\` creates one).\n`);
    return 1;
  }
}

const actions = ['list', 'create', 'set-limits'] as const;

/** `quantum-chat orgs list|create|set-limits`. */
export const orgsCommand: Command = {
  name: 'orgs',
  summary: 'List and create organisations, and set their plan and limits',
  usage,
  async run(args, context) {
    const { values, positionals } = parseArgs({
      args,
      options: { ...storeOptions, plan: { type: 'string' }, ...limitParseOptions },
      strict: true,
      allowPositionals: true,
    });
    const [action, name, extra] = positionals;
    if (!(actions as readonly (string | undefined)[]).includes(action)) throw new CommandUsageError(`Expected ${actions.join(', ')}, got '${action ?? ''}'.`);
    if (extra !== undefined || (action === 'list' && name !== undefined)) throw new CommandUsageError(`Unexpected argument '${extra ?? name}'.`);
    if (action !== 'list' && name === undefined) throw new CommandUsageError(`\`orgs ${action}\` needs the organisation name.`);
    if (action === 'list' && (values.plan !== undefined || Object.keys(limitOptions).some((option) => (values as Record<string, unknown>)[option] !== undefined))) {
      throw new CommandUsageError('`orgs list` takes no --plan or limit options.');
    }
    return withAdminService(values, context, wireOptionNames, async (admin, by) => {
      if (action === 'list') return list(admin, context);
      if (action === 'create') return create(admin, by, name!, values, context);
      return setLimits(admin, by, name!, values, context);
    });
  },
};
