import { parseArgs } from 'node:util';
import { resolveLimits, type KeyStore, type LimitOverrides, type Organisation } from '@quantum-chat/access-control';
import type { Plan } from '@quantum-chat/core';
import type { Command, CommandContext } from './command.js';
import { CommandUsageError, oneOf, parseLimit } from './command-arguments.js';
import { openCommandStore, storeOptions, storeOptionsUsage } from './command-store.js';
import { formatTable } from './format-table.js';

const usage = `Usage:
  quantum-chat orgs list
  quantum-chat orgs set-limits <name> [--plan free|elite] [--requests-per-minute N]
                                      [--tokens-per-minute N] [--tokens-per-day N]

Shows and changes organisations. Limits default to the plan's (free: 60 requests/min,
100,000 tokens/min, 1,000,000 tokens/day; elite: 600 requests/min, 2,000,000 tokens/min, no
daily cap). A value N is a whole number, \`none\` (no limit) or \`default\` (the plan's).
Running servers apply a change at the next request; test keys get the same limits, counted
apart from live keys.

Options:
  --plan <free|elite>         Change the plan
  --requests-per-minute <N>   Override requests per minute
  --tokens-per-minute <N>     Override tokens per minute (prompt + max_tokens are reserved)
  --tokens-per-day <N>        Override tokens per day (429 insufficient_quota when used up)
${storeOptionsUsage}
`;

const show = (value: number | null) => (value === null ? 'none' : String(value));

function describe(organisation: Organisation): string[] {
  const limits = resolveLimits(organisation.plan, organisation.limits);
  const mark = (field: keyof LimitOverrides) => (organisation.limits[field] !== undefined ? ' *' : '');
  return [
    organisation.name,
    organisation.plan,
    show(limits.requestsPerMinute) + mark('requestsPerMinute'),
    show(limits.tokensPerMinute) + mark('tokensPerMinute'),
    show(limits.tokensPerDay) + mark('tokensPerDay'),
  ];
}

const header = ['ORGANISATION', 'PLAN', 'REQUESTS/MIN', 'TOKENS/MIN', 'TOKENS/DAY'];

async function list(store: KeyStore, context: CommandContext): Promise<number> {
  const organisations = await store.listOrganisations();
  if (organisations.length === 0) context.stdout.write('No organisations.\n');
  else context.stdout.write(formatTable([header, ...organisations.map(describe)]) + '(* overrides the plan default)\n');
  return 0;
}

async function setLimits(store: KeyStore, name: string | undefined, values: Record<string, string | undefined>, context: CommandContext): Promise<number> {
  if (name === undefined) throw new CommandUsageError('`orgs set-limits` needs the organisation name.');
  const plan = values.plan === undefined ? undefined : oneOf<Plan>('plan', values.plan, ['free', 'elite']);
  const limits: LimitOverrides = {};
  const resetLimits: (keyof LimitOverrides)[] = [];
  const fields = { 'requests-per-minute': 'requestsPerMinute', 'tokens-per-minute': 'tokensPerMinute', 'tokens-per-day': 'tokensPerDay' } as const;
  for (const [option, field] of Object.entries(fields)) {
    if (values[option] === undefined) continue;
    const value = parseLimit(option, values[option]);
    if (value === undefined) resetLimits.push(field);
    else limits[field] = value;
  }
  if ((await store.getOrganisation(name)) === undefined) {
    context.stderr.write(`quantum-chat orgs: there is no organisation '${name}' (\`quantum-chat keys create --org ${name}\` creates one).\n`);
    return 1;
  }
  const updated = await store.updateOrganisation(name, { ...(plan !== undefined ? { plan } : {}), limits, resetLimits });
  context.stdout.write(formatTable([header, describe(updated)]) + '(* overrides the plan default)\n');
  return 0;
}

/** `quantum-chat orgs list|set-limits`. */
export const orgsCommand: Command = {
  name: 'orgs',
  summary: 'List organisations and set their plan and limits',
  usage,
  async run(args, context) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        ...storeOptions,
        plan: { type: 'string' },
        'requests-per-minute': { type: 'string' },
        'tokens-per-minute': { type: 'string' },
        'tokens-per-day': { type: 'string' },
      },
      strict: true,
      allowPositionals: true,
    });
    const [action, name, extra] = positionals;
    if (action !== 'list' && action !== 'set-limits') throw new CommandUsageError(`Expected list or set-limits, got '${action ?? ''}'.`);
    if (extra !== undefined || (action === 'list' && name !== undefined)) throw new CommandUsageError(`Unexpected argument '${extra ?? name}'.`);
    const store = openCommandStore(values, context);
    try {
      return action === 'list' ? await list(store, context) : await setLimits(store, name, values, context);
    } finally {
      await store.close();
    }
  },
};
