#!/usr/bin/env node
// Renders results/compat.json (recorded by `pnpm compat:record`: one section per test file,
// only cells whose test passed) into the root README, between <!-- compat:start --> and
// <!-- compat:end -->. Every cell of the tables comes from a record; nothing is typed by hand.
//
//   node scripts/render-compat-table.mjs           # rewrite the README section
//   node scripts/render-compat-table.mjs --check   # exit 1 if the README is out of date
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const resultsPath = fileURLToPath(new URL('../results/compat.json', import.meta.url));
const readmePath = fileURLToPath(new URL('../../../README.md', import.meta.url));
const startMarker = '<!-- compat:start -->';
const endMarker = '<!-- compat:end -->';

const formats = [
  { id: 'quantum', heading: '`/v1` (quantum format, the default)', use: '`/v1`' },
  { id: 'openai-path', heading: '`/compat/v1` (OpenAI format)', use: '`/compat/v1`' },
  { id: 'openai-header', heading: '`/v1` + header `x-stream-format: openai`', use: '`x-stream-format: openai`' },
];

/** Columns of the errors table: a heading and the features whose records fill it. */
const errorColumns = [
  { heading: '401', features: ['401'] },
  { heading: '400', features: ['400'] },
  { heading: '403 plan', features: ['403'] },
  { heading: '404 model', features: ['404', '404 (stream)'] },
  { heading: '5xx', features: ['5xx'] },
  { heading: '429 `rate_limit_exceeded`', features: ['429 rate_limit_exceeded', '429 retry'] },
  { heading: '429 `insufficient_quota`', features: ['429 insufficient_quota', '429 no retry', '429 no retry (isRetryable)'] },
  { heading: 'Mid-stream error', features: ['mid-stream error', 'mid-stream error (helper)'] },
];

/** Columns of the Responses API table (`POST /v1/responses`, one format): a heading and the feature whose records fill it. */
const responsesColumns = [
  { heading: 'JSON', feature: 'responses: create' },
  { heading: 'Stream', feature: 'responses: stream' },
  { heading: 'Stream helper', feature: 'responses: stream helper' },
  { heading: 'Reasoning', feature: 'responses: reasoning' },
  { heading: 'Tools', feature: 'responses: tools' },
  { heading: 'Structured output', feature: 'responses: structured output' },
  { heading: 'Stored state', feature: 'responses: stored state' },
  { heading: 'Background + cancel', feature: 'responses: background' },
  { heading: 'Resume', feature: 'responses: resume' },
];
const responsesFeatures = new Set(responsesColumns.map((column) => column.feature));

/** Display names of the format-dependent features, in the order the details table lists them. */
const featureNames = {
  chat: 'non-streaming',
  stream: 'streaming',
  'stream-helper': '`stream()` helper',
  reasoning: 'reasoning',
  tools: 'tool calls',
  'tools-non-streaming': 'tool calls (non-streaming)',
  'include-usage': '`include_usage`',
  models: '`GET /models`',
};
const featureOrder = Object.keys(featureNames);
const errorFeatures = new Set(errorColumns.flatMap((column) => column.features));
const byFeature = (a, b) => (featureOrder.indexOf(a) + 1 || 99) - (featureOrder.indexOf(b) + 1 || 99) || a.localeCompare(b);

const clientRank = (client) => (client === 'openai' ? 0 : client.startsWith('ai ') ? 1 : 2);
const compareVersions = (a, b) => {
  const left = a.split(/[^0-9]+/).filter(Boolean).map(Number);
  const right = b.split(/[^0-9]+/).filter(Boolean).map(Number);
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    if ((left[index] ?? 0) !== (right[index] ?? 0)) return (right[index] ?? 0) - (left[index] ?? 0);
  }
  return 0;
};
const unique = (values) => [...new Set(values)];
const escapeCell = (text) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
/** `ai + @ai-sdk/openai-compatible` → `ai` + `@ai-sdk/openai-compatible`. */
const clientCell = (client) => client.split(' + ').map((name) => `\`${name}\``).join(' + ');

function load() {
  const file = JSON.parse(readFileSync(resultsPath, 'utf8'));
  const records = Object.values(file.suites).flatMap((suite) => suite.records);
  if (records.length === 0) throw new Error(`${resultsPath} holds no records: run the interop tests first.`);
  return { file, records };
}

function rowsOf(records) {
  const rows = unique(records.map((record) => `${record.client}\u0000${record.version}`)).map((key) => {
    const [client, version] = key.split('\u0000');
    return { client, version, records: records.filter((record) => record.client === client && record.version === version) };
  });
  return rows.sort((a, b) => clientRank(a.client) - clientRank(b.client) || compareVersions(a.version, b.version));
}

const testCount = (records) => unique(records.map((record) => `${record.suite}\u0000${record.test}`)).length;
const modelsOf = (records) => unique(records.map((record) => record.model).filter(Boolean));

/** The streaming-formats table, with caveats as numbered notes below it. */
function renderFormatsTable(rows) {
  const notes = [];
  const noteFor = (text) => {
    if (!notes.includes(text)) notes.push(text);
    return notes.indexOf(text) + 1;
  };
  const lines = [
    `| Client | Version | ${formats.map((format) => format.heading).join(' | ')} | Use |`,
    `|---|---|${formats.map(() => '---').join('|')}|---|`,
  ];
  for (const row of rows) {
    const cells = [];
    const working = [];
    for (const format of formats) {
      const records = row.records.filter((record) => record.format === format.id && !errorFeatures.has(record.feature));
      if (records.length === 0) {
        cells.push('— not tested');
        continue;
      }
      const failing = records.filter((record) => record.outcome === 'fails');
      const tests = `<sub>${testCount(records)} tests</sub>`;
      if (failing.length === 0) {
        working.push(format);
        const marks = unique([...records].sort((a, b) => byFeature(a.feature, b.feature)).map((record) => record.detail).filter(Boolean)).map((detail) => noteFor(detail));
        cells.push(`✅ works${marks.length ? ` <sup>${unique(marks).sort((a, b) => a - b).join(',')}</sup>` : ''} ${tests}`);
        continue;
      }
      const names = (list) => unique(list.map((record) => record.feature).sort(byFeature)).map((feature) => featureNames[feature] ?? feature);
      const failed = names(failing);
      const passed = names(records.filter((record) => record.outcome === 'works')).filter((name) => !failed.includes(name));
      const details = unique(failing.map((record) => record.detail).filter(Boolean));
      cells.push(`❌ fails: ${failed.join(', ')} — ${details.join('; ')}${passed.length ? `. Works: ${passed.join(', ')}` : ''} ${tests}`);
    }
    const use = working.length === formats.length ? 'any (the default `/v1` is fine)' : working.length ? working.map((format) => format.use).join(' or ') : 'none found';
    lines.push(`| ${clientCell(row.client)} | ${row.version} | ${cells.map(escapeCell).join(' | ')} | ${escapeCell(use)} |`);
  }
  return { lines, notes };
}

/** One cell of the errors table: every distinct proven outcome, failures first, in column order. */
function renderOutcomes(records, column) {
  if (records.length === 0) return '— not tested';
  const formatsSeen = unique(records.map((record) => record.format)).filter((format) => format !== 'any');
  const sorted = [...records].sort(
    (a, b) =>
      (a.outcome === 'fails' ? 0 : 1) - (b.outcome === 'fails' ? 0 : 1) ||
      column.features.indexOf(a.feature) - column.features.indexOf(b.feature) ||
      (a.detail ?? '').localeCompare(b.detail ?? ''),
  );
  const parts = unique(sorted.map((record) => `${record.outcome === 'works' ? '✅' : '❌'}${record.detail ? ` ${record.detail}` : ''}`));
  const scope = formatsSeen.length === formats.length ? ' (all 3 formats)' : formatsSeen.length ? ` (${formatsSeen.join(', ')})` : '';
  return `${parts.join('<br>')}${scope}`;
}

function renderErrorsTable(rows) {
  const lines = [`| Client | Version | ${errorColumns.map((column) => column.heading).join(' | ')} |`, `|---|---|${errorColumns.map(() => '---').join('|')}|`];
  for (const row of rows) {
    const cells = errorColumns.map((column) => renderOutcomes(row.records.filter((record) => column.features.includes(record.feature)), column));
    lines.push(`| ${clientCell(row.client)} | ${row.version} | ${cells.map(escapeCell).join(' | ')} |`);
  }
  return lines;
}

/** Per client, feature by format: what each summary cell above stands on. */
function renderDetails(rows) {
  const lines = ['<details><summary>Feature by feature (every cell is a passing test)</summary>', ''];
  lines.push(`| Client | Version | Feature | ${formats.map((format) => format.heading).join(' | ')} |`, `|---|---|---|${formats.map(() => '---').join('|')}|`);
  for (const row of rows) {
    const features = unique(row.records.filter((record) => record.format !== 'any' && !errorFeatures.has(record.feature)).map((record) => record.feature)).sort(byFeature);
    for (const feature of features) {
      const cells = formats.map((format) => {
        const records = row.records.filter((record) => record.feature === feature && record.format === format.id);
        if (records.length === 0) return '—';
        const failing = records.filter((record) => record.outcome === 'fails');
        const models = modelsOf(records);
        const scope = models.length ? ` (${models.length === 4 ? 'all 4 models' : models.join(', ')})` : '';
        if (failing.length) return `❌ ${unique(failing.map((record) => record.detail)).join('; ')}`;
        const caveats = unique(records.map((record) => record.detail).filter(Boolean)).sort();
        return `✅${scope}${caveats.length ? `: ${caveats.join('; ')}` : ''}`;
      });
      lines.push(`| ${clientCell(row.client)} | ${row.version} | ${featureNames[feature] ?? feature} | ${cells.map(escapeCell).join(' | ')} |`);
    }
  }
  lines.push('', '</details>');
  return lines;
}

/** The Responses API, client by feature: only the clients that have a Responses record. */
function renderResponsesTable(rows) {
  const lines = [`| Client | Version | ${responsesColumns.map((column) => column.heading).join(' | ')} |`, `|---|---|${responsesColumns.map(() => '---').join('|')}|`];
  for (const row of rows) {
    if (!row.records.some((record) => responsesFeatures.has(record.feature))) continue;
    const cells = responsesColumns.map((column) => {
      const records = row.records.filter((record) => record.feature === column.feature);
      if (records.length === 0) return '— not tested';
      const failing = records.filter((record) => record.outcome === 'fails');
      if (failing.length) return `❌ ${unique(failing.map((record) => record.detail)).join('; ')}`;
      const caveats = unique(records.map((record) => record.detail).filter(Boolean)).sort();
      return `✅${caveats.length ? ` ${caveats.join('; ')}` : ''}`;
    });
    lines.push(`| ${clientCell(row.client)} | ${row.version} | ${cells.map(escapeCell).join(' | ')} |`);
  }
  return lines;
}

function render() {
  const { file, records } = load();
  const rows = rowsOf(records);
  const { lines: formatLines, notes } = renderFormatsTable(rows);
  const suites = Object.keys(file.suites).length;
  return [
    startMarker,
    `<!-- Generated by checks/interop/scripts/render-compat-table.mjs from checks/interop/results/compat.json: do not edit by hand. -->`,
    '',
    `**Stream formats.** Each cell sums up the tests of that client in that format: non-streaming and streaming text, reasoning, tool calls, \`stream_options.include_usage\` and \`GET /models\`, for all four models. ${records.length} proven cells from ${testCount(records)} passing tests in ${suites} test files.`,
    '',
    ...formatLines,
    '',
    ...notes.map((note, index) => `<sup>${index + 1}</sup> ${note}  `),
    '',
    '**Errors and retries.** HTTP errors are answered before any stream starts, so they do not depend on the format; the mid-stream error is tested in each format.',
    '',
    ...renderErrorsTable(rows),
    '',
    ...renderDetails(rows),
    '',
    '**The Responses API** (`POST /v1/responses` and the routes of stored responses; one wire format, so one column per feature).',
    '',
    ...renderResponsesTable(rows),
    endMarker,
  ].join('\n');
}

const table = render();
const readme = readFileSync(readmePath, 'utf8');
const start = readme.indexOf(startMarker);
const end = readme.indexOf(endMarker);
if (start === -1 || end === -1 || end < start) {
  console.error(`${readmePath} has no ${startMarker} … ${endMarker} section.`);
  process.exit(1);
}
const updated = `${readme.slice(0, start)}${table}${readme.slice(end + endMarker.length)}`;
if (process.argv.includes('--check')) {
  if (updated !== readme) {
    console.error('The README compatibility table is out of date: run `node checks/interop/scripts/render-compat-table.mjs`.');
    process.exit(1);
  }
  console.log('The README compatibility table is up to date.');
} else {
  writeFileSync(readmePath, updated);
  console.log(`Rendered ${rowsOf(load().records).length} clients into ${readmePath}.`);
}
