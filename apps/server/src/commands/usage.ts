import { parseArgs } from 'node:util';
import type { UsageSummaryRow } from '@quantum-chat/access-control';
import type { Command } from './command.js';
import { CommandUsageError } from './command-arguments.js';
import { openCommandStore, storeOptions, storeOptionsUsage } from './command-store.js';
import { formatTable } from './format-table.js';

const usage = `Usage: quantum-chat usage --org <name> [--since <iso date>] [--json]

Totals of an organisation's chat requests per key and model: requests, prompt and completion
tokens, errors (answered with a status of 400 or more) and interrupted requests (a client
disconnect or a failure mid-stream). Requests refused before the engine ran (401, 403, 429)
are not counted.

Options:
  --org <name>         The organisation
  --since <iso date>   Only requests from then on, e.g. 2026-01-31 or 2026-01-31T12:00:00Z
  --json               The rows as JSON
${storeOptionsUsage}
`;

function totalOf(rows: readonly UsageSummaryRow[]): string[] {
  const sum = (field: 'requests' | 'promptTokens' | 'completionTokens' | 'errors' | 'interrupted') => String(rows.reduce((total, row) => total + row[field], 0));
  return ['total', '', '', sum('requests'), sum('promptTokens'), sum('completionTokens'), sum('errors'), sum('interrupted')];
}

/** `quantum-chat usage --org <name> [--since <iso>]`. */
export const usageCommand: Command = {
  name: 'usage',
  summary: "Report an organisation's usage per key and model",
  usage,
  async run(args, context) {
    const { values } = parseArgs({
      args,
      options: { ...storeOptions, org: { type: 'string' }, since: { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    });
    if (values.org === undefined || values.org === '') throw new CommandUsageError('`usage` needs --org <name>.');
    const since = values.since === undefined ? undefined : Date.parse(values.since);
    if (since !== undefined && Number.isNaN(since)) throw new CommandUsageError(`--since must be an ISO date, got '${values.since}'.`);
    const store = openCommandStore(values, context);
    try {
      if ((await store.getOrganisation(values.org)) === undefined) {
        context.stderr.write(`quantum-chat usage: there is no organisation '${values.org}'.\n`);
        return 1;
      }
      const rows = await store.summariseUsage({ organisation: values.org, ...(since !== undefined ? { since } : {}) });
      if (values.json) {
        context.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return 0;
      }
      const from = since === undefined ? '' : ` since ${new Date(since).toISOString()}`;
      if (rows.length === 0) {
        context.stdout.write(`No requests for '${values.org}'${from}.\n`);
        return 0;
      }
      const table = rows.map((row) => [
        row.keyId,
        `${row.keyDisplay} (${row.kind})`,
        row.model,
        String(row.requests),
        String(row.promptTokens),
        String(row.completionTokens),
        String(row.errors),
        String(row.interrupted),
      ]);
      context.stdout.write(`Usage of '${values.org}'${from}:\n`);
      context.stdout.write(formatTable([['KEY ID', 'KEY', 'MODEL', 'REQUESTS', 'PROMPT', 'COMPLETION', 'ERRORS', 'INTERRUPTED'], ...table, totalOf(rows)]));
      return 0;
    } finally {
      await store.close();
    }
  },
};
