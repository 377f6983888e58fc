import { parseArgs } from 'node:util';
import type { Command } from './command.js';
import { withAdminService } from './command-admin.js';
import { timeOption, wireOptionNames } from './command-arguments.js';
import { storeOptions, storeOptionsUsage } from './command-store.js';
import { formatTable } from './format-table.js';

const usage = `Usage: quantum-chat audit [--since <time>] [--limit N] [--json]

The audit log: every change made through the admin API or these commands, newest first: when,
who (admin:<token id> for the admin API, cli:<system user> for the CLI), what and to what.
Secrets are never written to it.

Options:
  --since <time>   Entries from then on: an ISO 8601 time, a date, or Unix seconds
  --limit <N>      At most N entries (default 100, at most 1000)
  --json           The entries as JSON
${storeOptionsUsage}
`;

/** `quantum-chat audit`. */
export const auditCommand: Command = {
  name: 'audit',
  summary: 'Show the audit log of administrative changes',
  usage,
  async run(args, context) {
    const { values } = parseArgs({
      args,
      options: { ...storeOptions, since: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    });
    const since = timeOption(values.since);
    return withAdminService(values, context, wireOptionNames, async (admin) => {
      const entries = await admin.auditLog({ ...(since !== undefined ? { since: String(since) } : {}), ...(values.limit !== undefined ? { limit: values.limit } : {}) });
      if (values.json) {
        context.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
        return 0;
      }
      if (entries.length === 0) {
        context.stdout.write('The audit log is empty.\n');
        return 0;
      }
      const rows = entries.map((entry) => [new Date(entry.created_at * 1000).toISOString(), entry.actor, entry.action, entry.subject ?? '-', JSON.stringify(entry.details)]);
      context.stdout.write(formatTable([['TIME', 'WHO', 'ACTION', 'SUBJECT', 'DETAILS'], ...rows]));
      return 0;
    });
  },
};
