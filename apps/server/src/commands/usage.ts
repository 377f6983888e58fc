import { parseArgs } from 'node:util';
import type { UsageSummaryRow } from '@quantum-chat/access-control';
import type { Command } from './command.js';
import { withAdminService } from './command-admin.js';
import { CommandUsageError, wireOptionNames } from './command-arguments.js';
import { storeOptions, storeOptionsUsage } from './command-store.js';
import { formatTable } from './format-table.js';

const usage = `Usage: quantum-chat usage --org <name> [--since <iso date>] [--by-day [--until <date>]] [--json]

Totals of an organisation's chat requests per key and model: requests, prompt tokens (and of
them those read from a model's prompt cache), completion tokens, errors (answered with a status of 400 or more) and interrupted requests (a client
disconnect or a failure mid-stream). Requests refused before the engine ran (401, 403, 429)
are not counted. With --by-day, one row per UTC day, key and model (the admin API's
GET /admin/v1/usage): 30 days up to today unless --since and --until say otherwise.

Options:
  --org <name>         The organisation
  --since <iso date>   Only requests from then on, e.g. 2026-01-31 or 2026-01-31T12:00:00Z
  --until <date>       With --by-day: the last day counted (default today)
  --by-day             Totals per UTC day, key and model
  --json               The rows as JSON
${storeOptionsUsage}
`;

function totalOf(rows: readonly UsageSummaryRow[]): string[] {
  const sum = (field: 'requests' | 'promptTokens' | 'cachedPromptTokens' | 'completionTokens' | 'errors' | 'interrupted') => String(rows.reduce((total, row) => total + row[field], 0));
  return ['total', '', '', sum('requests'), sum('promptTokens'), sum('cachedPromptTokens'), sum('completionTokens'), sum('errors'), sum('interrupted')];
}

/** `quantum-chat usage --org <name> [--since <iso>] [--by-day]`. */
export const usageCommand: Command = {
  name: 'usage',
  summary: "Report an organisation's usage per key and model (and day)",
  usage,
  async run(args, context) {
    const { values } = parseArgs({
      args,
      options: { ...storeOptions, org: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' }, 'by-day': { type: 'boolean' }, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    });
    const organisation = values.org;
    if (organisation === undefined || organisation === '') throw new CommandUsageError('`usage` needs --org <name>.');
    const since = values.since === undefined ? undefined : Date.parse(values.since);
    if (since !== undefined && Number.isNaN(since)) throw new CommandUsageError(`--since must be an ISO date, got '${values.since}'.`);
    if (values.until !== undefined && !values['by-day']) throw new CommandUsageError('--until goes with --by-day.');
    return withAdminService(values, context, wireOptionNames, async (admin) => {
      if (values['by-day']) {
        const report = await admin.usage({
          organisation,
          ...(since !== undefined ? { since: new Date(since).toISOString().slice(0, 10) } : {}),
          ...(values.until !== undefined ? { until: values.until } : {}),
        });
        if (values.json) {
          context.stdout.write(`${JSON.stringify(report.data, null, 2)}\n`);
          return 0;
        }
        if (report.data.length === 0) {
          context.stdout.write(`No requests for '${organisation}' from ${report.since} to ${report.until}.\n`);
          return 0;
        }
        const rows = report.data.map((row) => [row.day, row.key_id, `${row.key_display} (${row.kind})`, row.model, String(row.requests), String(row.prompt_tokens), String(row.cached_prompt_tokens), String(row.completion_tokens), String(row.total_tokens)]);
        context.stdout.write(`Usage of '${organisation}' per day, ${report.since} to ${report.until}:\n`);
        context.stdout.write(formatTable([['DAY', 'KEY ID', 'KEY', 'MODEL', 'REQUESTS', 'PROMPT', 'CACHED', 'COMPLETION', 'TOTAL'], ...rows]));
        return 0;
      }
      const rows = await admin.usageTotals(organisation, since);
      if (values.json) {
        context.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return 0;
      }
      const from = since === undefined ? '' : ` since ${new Date(since).toISOString()}`;
      if (rows.length === 0) {
        context.stdout.write(`No requests for '${organisation}'${from}.\n`);
        return 0;
      }
      const table = rows.map((row) => [
        row.keyId,
        `${row.keyDisplay} (${row.kind})`,
        row.model,
        String(row.requests),
        String(row.promptTokens),
        String(row.cachedPromptTokens),
        String(row.completionTokens),
        String(row.errors),
        String(row.interrupted),
      ]);
      context.stdout.write(`Usage of '${organisation}'${from}:\n`);
      context.stdout.write(formatTable([['KEY ID', 'KEY', 'MODEL', 'REQUESTS', 'PROMPT', 'CACHED', 'COMPLETION', 'ERRORS', 'INTERRUPTED'], ...table, totalOf(rows)]));
      return 0;
    });
  },
};
