import { parseArgs } from 'node:util';
import type { ApiKeyObject } from '../admin/admin-schemas.js';
import type { AdminActor, AdminService } from '../admin/admin-service.js';
import type { Command, CommandContext } from './command.js';
import { withAdminService } from './command-admin.js';
import { CommandUsageError, limitParseOptions, limitsFromOptions, modelsOption, oneOf, timeOption, wireOptionNames } from './command-arguments.js';
import { storeOptions, storeOptionsUsage } from './command-store.js';
import { formatTable } from './format-table.js';

const usage = `Usage:
  quantum-chat keys create --org <name> [--plan free|elite] [--kind live|test] [--require-signature]
                           [--expires-at <time>] [--models <id,id,...>] [--requests-per-minute N]
                           [--tokens-per-minute N] [--tokens-per-day N]
  quantum-chat keys list [--org <name>]
  quantum-chat keys revoke <id>
  quantum-chat keys rotate <id> [--overlap <seconds>] [--expires-at <time>|never]
  quantum-chat keys set <id> [--expires-at <time>|never] [--models <id,id,...>|all]
                        [--requests-per-minute N|none] [--tokens-per-minute N|none] [--tokens-per-day N|none]

Manages API keys in the server's store (PostgreSQL, or <dataDir>/quantum-chat.sqlite), through
the same code as the admin API; every change is written to the audit log (\`quantum-chat audit\`).
A new key is printed once, as the last line of stdout; the store keeps only its SHA-256, and
listings show its prefix and last 4 characters.

Options:
  --org <name>           The organisation; \`keys create\` creates it if missing
  --plan <free|elite>    The plan of an organisation created here (default free)
  --kind <live|test>     live: the configured engines; test: the reference engine, with limits
                         of their own (default live)
  --require-signature    The key is only valid with a good X-Service-Signature
  --expires-at <time>    The key stops working then (401 invalid_api_key, saying it expired): an
                         ISO 8601 time such as 2027-01-31T00:00:00Z, a date, or Unix seconds
                         (default: never; \`never\` clears it with \`keys set\`)
  --models <ids>         The only models the key may use, comma-separated; others get
                         403 model_not_allowed (default: every model its plan allows; \`all\`
                         clears the list with \`keys set\`)
  --requests-per-minute, --tokens-per-minute, --tokens-per-day <N>
                         The key's own limits, counted apart and applied within its
                         organisation's (\`none\` drops one with \`keys set\`)
  --overlap <seconds>    \`keys rotate\`: how long the old key keeps working beside the new one
                         (default 3600; 0 stops it at once)
${storeOptionsUsage}
`;

const iso = (seconds: number | null) => (seconds === null ? '-' : new Date(seconds * 1000).toISOString());

function limitsText(key: ApiKeyObject): string {
  const parts = Object.entries(key.limits).map(([field, value]) => `${field.replace(/_/gu, '-')}=${String(value)}`);
  return parts.length === 0 ? '-' : parts.join(',');
}

async function createKey(admin: AdminService, by: AdminActor, values: Record<string, unknown>, context: CommandContext): Promise<number> {
  const organisation = values.org as string | undefined;
  if (organisation === undefined || organisation === '') throw new CommandUsageError('`keys create` needs --org <name>.');
  const plan = values.plan === undefined ? undefined : oneOf('plan', values.plan as string, ['free', 'elite'] as const);
  const request = {
    organisation,
    kind: values.kind ?? 'live',
    require_signature: values['require-signature'] === true,
    ...(values['expires-at'] !== undefined ? { expires_at: timeOption(values['expires-at'] as string) } : {}),
    ...(values.models !== undefined ? { allowed_models: modelsOption(values.models as string) } : {}),
    ...(limitsFromOptions(values, []) !== undefined ? { limits: limitsFromOptions(values, []) } : {}),
  };
  admin.checkKeyRequest(request);
  const existing = (await admin.listOrganisations()).find((candidate) => candidate.name === organisation);
  if (existing === undefined) {
    await admin.createOrganisation({ name: organisation, plan: plan ?? 'free' }, by);
    context.stdout.write(`Created organisation '${organisation}' (${plan ?? 'free'} plan).\n`);
  } else if (plan !== undefined && plan !== existing.plan) {
    context.stderr.write(`quantum-chat keys: organisation '${organisation}' is on the ${existing.plan} plan; change it with \`quantum-chat orgs set-limits ${organisation} --plan ${plan}\`.\n`);
    return 1;
  }
  const created = await admin.createKey(request, by);
  const signature = created.require_signature ? ', signature required' : '';
  context.stdout.write(`Created ${created.kind} key ${created.id} for '${organisation}'${signature}. It is shown only this once; store it now:\n`);
  // The key itself is the last line, alone, so that scripts can take it with `tail -n 1`.
  context.stdout.write(`${created.secret}\n`);
  return 0;
}

async function listKeys(admin: AdminService, organisation: string | undefined, context: CommandContext): Promise<number> {
  const keys = await admin.listKeys(organisation === undefined ? {} : { organisation });
  if (keys.length === 0) {
    context.stdout.write(organisation === undefined ? 'No keys.\n' : `No keys for '${organisation}'.\n`);
    return 0;
  }
  const rows = keys.map((key) => [
    key.id,
    key.display,
    key.kind,
    key.organisation,
    iso(key.created_at),
    key.status,
    key.require_signature ? 'required' : '-',
    iso(key.expires_at),
    key.allowed_models === null ? 'all' : key.allowed_models.join(','),
    limitsText(key),
  ]);
  context.stdout.write(formatTable([['ID', 'KEY', 'KIND', 'ORGANISATION', 'CREATED', 'STATUS', 'SIGNATURE', 'EXPIRES', 'MODELS', 'LIMITS'], ...rows]));
  return 0;
}

async function revokeKey(admin: AdminService, by: AdminActor, id: string, context: CommandContext): Promise<number> {
  const key = await admin.revokeKey(id, by);
  context.stdout.write(`Revoked ${id} (${key.display}, '${key.organisation}'). Requests with it now get 401 invalid_api_key.\n`);
  return 0;
}

async function rotateKey(admin: AdminService, by: AdminActor, id: string, values: Record<string, unknown>, context: CommandContext): Promise<number> {
  const overlap = values.overlap as string | undefined;
  if (overlap !== undefined && !/^\d+$/u.test(overlap)) throw new CommandUsageError(`--overlap must be a whole number of seconds, got '${overlap}'.`);
  const expires = values['expires-at'] as string | undefined;
  const rotated = await admin.rotateKey(
    id,
    {
      ...(overlap !== undefined ? { overlap_seconds: Number(overlap) } : {}),
      ...(expires !== undefined ? { expires_at: expires === 'never' ? null : timeOption(expires) } : {}),
    },
    by,
  );
  const previous = rotated.previous_key;
  context.stdout.write(`Rotated ${previous.id} (${previous.display}): it works until ${iso(previous.expires_at)}, then gets 401 invalid_api_key.\n`);
  context.stdout.write(`Created ${rotated.kind} key ${rotated.id} for '${rotated.organisation}'. It is shown only this once; store it now:\n`);
  context.stdout.write(`${rotated.secret}\n`);
  return 0;
}

async function setKey(admin: AdminService, by: AdminActor, id: string, values: Record<string, unknown>, context: CommandContext): Promise<number> {
  const expires = values['expires-at'] as string | undefined;
  const models = values.models as string | undefined;
  const limits = limitsFromOptions(values, ['none']);
  const request = {
    ...(expires !== undefined ? { expires_at: expires === 'never' ? null : timeOption(expires) } : {}),
    ...(models !== undefined ? { allowed_models: models === 'all' ? null : modelsOption(models) } : {}),
    ...(limits !== undefined ? { limits } : {}),
  };
  if (Object.keys(request).length === 0) throw new CommandUsageError('`keys set` needs at least one of --expires-at, --models and the limit options.');
  const key = await admin.updateKey(id, request, by);
  context.stdout.write(`Changed ${key.id} (${key.display}): expires ${iso(key.expires_at)}, models ${key.allowed_models?.join(',') ?? 'all'}, limits ${limitsText(key)}.\n`);
  return 0;
}

const actions = ['create', 'list', 'revoke', 'rotate', 'set'] as const;

/** `quantum-chat keys create|list|revoke|rotate|set`. */
export const keysCommand: Command = {
  name: 'keys',
  summary: 'Create, list, revoke, rotate and change API keys',
  usage,
  async run(args, context) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        ...storeOptions,
        org: { type: 'string' },
        plan: { type: 'string' },
        kind: { type: 'string' },
        'require-signature': { type: 'boolean' },
        'expires-at': { type: 'string' },
        models: { type: 'string' },
        overlap: { type: 'string' },
        ...limitParseOptions,
      },
      strict: true,
      allowPositionals: true,
    });
    const [action, ...rest] = positionals;
    if (!(actions as readonly (string | undefined)[]).includes(action)) throw new CommandUsageError(`Expected ${actions.join(', ')}, got '${action ?? ''}'.`);
    const takesId = action === 'revoke' || action === 'rotate' || action === 'set';
    if (rest.length > (takesId ? 1 : 0)) throw new CommandUsageError(`Unexpected argument '${rest.at(-1)}'.`);
    const id = rest[0];
    if (takesId && id === undefined) throw new CommandUsageError(`\`keys ${action}\` needs the key id (see \`quantum-chat keys list\`).`);
    // `keys create` names the organisation it may create with --org.
    return withAdminService(values, context, { ...wireOptionNames, name: 'org' }, async (admin, by) => {
      if (action === 'create') return createKey(admin, by, values, context);
      if (action === 'list') return listKeys(admin, values.org, context);
      if (action === 'revoke') return revokeKey(admin, by, id!, context);
      if (action === 'rotate') return rotateKey(admin, by, id!, values, context);
      return setKey(admin, by, id!, values, context);
    });
  },
};
