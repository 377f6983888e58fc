import { parseArgs } from 'node:util';
import { displayKeyRecord, issueApiKey, type KeyStore } from '@quantum-chat/access-control';
import type { Plan } from '@quantum-chat/core';
import type { Command, CommandContext } from './command.js';
import { CommandUsageError, oneOf } from './command-arguments.js';
import { openCommandStore, storeOptions, storeOptionsUsage } from './command-store.js';
import { formatTable } from './format-table.js';

const usage = `Usage:
  quantum-chat keys create --org <name> [--plan free|elite] [--kind live|test] [--require-signature]
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
${storeOptionsUsage}
`;

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
  const { key, record } = await issueApiKey(store, { organisation, kind, requireSignature: values['require-signature'] === true });
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
    key.revoked ? 'revoked' : 'active',
    key.requireSignature ? 'required' : '-',
  ]);
  context.stdout.write(formatTable([['ID', 'KEY', 'KIND', 'ORGANISATION', 'CREATED', 'STATUS', 'SIGNATURE'], ...rows]));
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
