import { parseArgs } from 'node:util';
import { displayKeyRecord, issueApiKey, type KeyStore } from '@quantum-chat/access-control';
import type { Plan } from '@quantum-chat/core';
import type { Command, CommandContext } from './command.js';
import { CommandUsageError, oneOf } from './command-arguments.js';
import { openCommandStore, storeOptions, storeOptionsUsage } from './command-store.js';
import { formatTable } from './format-table.js';

const usage = `Usage:
  quantum-chat keys create --org <name> [--plan free|elite] [--kind live|test] [--require-signature]
                           [--expires-at <ISO time>] [--models <id,id,...>]
  quantum-chat keys list [--org <name>]
  quantum-chat keys revoke <id>

Manages API keys in the server's store (PostgreSQL, or <dataDir>/quantum-chat.sqlite). A new key is printed
once, as the last line of stdout; the store keeps only its SHA-256, and listings show its
prefix and last 4 characters.

Options:
  --org <name>           The organisation; \`keys create\` creates it if missing
  --plan <free|elite>    The plan of an organisation created here (default free)
  --kind <live|test>     live: the configured engines; test: the reference engine, with limits
                         of their own (default live)
  --require-signature    The key is only valid with a good X-Service-Signature
  --expires-at <time>    The key stops working then (401 invalid_api_key, saying it expired);
                         an ISO 8601 time such as 2027-01-31T00:00:00Z (default: never)
  --models <ids>         The only models the key may use, comma-separated; others get
                         403 model_not_allowed (default: every model its plan allows)
${storeOptionsUsage}
`;

/** `--expires-at`: an ISO 8601 time in the future, as ms since the epoch. */
function parseExpiry(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const time = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw new CommandUsageError(`--expires-at expects an ISO 8601 time such as 2027-01-31T00:00:00Z, got '${value}'.`);
  if (time <= Date.now()) throw new CommandUsageError(`--expires-at must be in the future, got '${value}'.`);
  return time;
}

/** `--models`: model ids, comma-separated. */
function parseModels(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const models = value.split(',').map((model) => model.trim()).filter((model) => model !== '');
  if (models.length === 0) throw new CommandUsageError('--models expects model ids such as quantum-lite,quantum-flash.');
  return [...new Set(models)];
}

async function createKey(store: KeyStore, values: Record<string, string | boolean | undefined>, context: CommandContext): Promise<number> {
  const organisation = values.org;
  if (typeof organisation !== 'string' || organisation === '') throw new CommandUsageError('`keys create` needs --org <name>.');
  const kind = oneOf('kind', values.kind as string | undefined, ['live', 'test'] as const, 'live');
  const plan = values.plan === undefined ? undefined : oneOf<Plan>('plan', values.plan as string, ['free', 'elite']);
  const existing = await store.getOrganisation(organisation);
  if (existing === undefined) {
    await store.createOrganisation({ name: organisation, plan: plan ?? 'free' });
    context.stdout.write(`Created organisation '${organisation}' (${plan ?? 'free'} plan).\n`);
  } else if (plan !== undefined && plan !== existing.plan) {
    context.stderr.write(`quantum-chat keys: organisation '${organisation}' is on the ${existing.plan} plan; change it with \`quantum-chat orgs set-limits ${organisation} --plan ${plan}\`.\n`);
    return 1;
  }
  const expiresAt = parseExpiry(values['expires-at'] as string | undefined);
  const allowedModels = parseModels(values.models as string | undefined);
  const { key, record } = await issueApiKey(store, {
    organisation,
    kind,
    requireSignature: values['require-signature'] === true,
    ...(expiresAt !== undefined ? { expiresAt } : {}),
    ...(allowedModels !== undefined ? { allowedModels } : {}),
  });
  const signature = record.requireSignature ? ', signature required' : '';
  context.stdout.write(`Created ${kind} key ${record.id} for '${organisation}'${signature}. It is shown only this once; store it now:\n`);
  // The key itself is the last line, alone, so that scripts can take it with `tail -n 1`.
  context.stdout.write(`${key}\n`);
  return 0;
}

async function listKeys(store: KeyStore, organisation: string | undefined, context: CommandContext): Promise<number> {
  const keys = await store.listKeys(organisation === undefined ? {} : { organisation });
  if (keys.length === 0) {
    context.stdout.write(organisation === undefined ? 'No keys.\n' : `No keys for '${organisation}'.\n`);
    return 0;
  }
  const rows = keys.map((key) => [
    key.id,
    displayKeyRecord(key),
    key.kind,
    key.organisation,
    new Date(key.createdAt).toISOString(),
    key.revoked ? 'revoked' : key.expiresAt !== null && key.expiresAt <= Date.now() ? 'expired' : 'active',
    key.requireSignature ? 'required' : '-',
    key.expiresAt === null ? '-' : new Date(key.expiresAt).toISOString(),
    key.allowedModels === null ? 'all' : key.allowedModels.join(','),
  ]);
  context.stdout.write(formatTable([['ID', 'KEY', 'KIND', 'ORGANISATION', 'CREATED', 'STATUS', 'SIGNATURE', 'EXPIRES', 'MODELS'], ...rows]));
  return 0;
}

async function revokeKey(store: KeyStore, id: string | undefined, context: CommandContext): Promise<number> {
  if (id === undefined) throw new CommandUsageError('`keys revoke` needs the key id (see `quantum-chat keys list`).');
  const key = await store.getKey(id);
  if (key === undefined || !(await store.revokeKey(id))) {
    context.stderr.write(`quantum-chat keys: there is no key '${id}'.\n`);
    return 1;
  }
  context.stdout.write(`Revoked ${id} (${displayKeyRecord(key)}, '${key.organisation}'). Requests with it now get 401 invalid_api_key.\n`);
  return 0;
}

/** `quantum-chat keys create|list|revoke`. */
export const keysCommand: Command = {
  name: 'keys',
  summary: 'Create, list and revoke API keys',
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
      },
      strict: true,
      allowPositionals: true,
    });
    const [action, ...rest] = positionals;
    if (action !== 'create' && action !== 'list' && action !== 'revoke') throw new CommandUsageError(`Expected create, list or revoke, got '${action ?? ''}'.`);
    if (rest.length > (action === 'revoke' ? 1 : 0)) throw new CommandUsageError(`Unexpected argument '${rest.at(-1)}'.`);
    const store = openCommandStore(values, context);
    try {
      if (action === 'create') return await createKey(store, values, context);
      if (action === 'list') return await listKeys(store, values.org, context);
      return await revokeKey(store, rest[0], context);
    } finally {
      await store.close();
    }
  },
};
