// How the report writes a figure: every formatter answers 'n/a' for a figure a run did not produce.

export const integer = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');
export const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
export const percent = (value) => (Number.isFinite(value) ? `${(value * 100).toFixed(1)} %` : 'n/a');
export const kib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(1)} KiB` : 'n/a');
export const microseconds = (value) => (Number.isFinite(value) ? `${value.toFixed(1)} µs` : 'n/a');
export const spread = (range) => (range ? `${fixed(range[0], 3)}–${fixed(range[1], 3)}` : '');
export const verdict = (met) => (met === undefined ? 'not shown by this run' : met ? '**met**' : '**missed**');
export const pieceName = (size) => (size === 'random' ? 'random (1 B–8 KiB)' : size >= 1024 ? `${size / 1024} KiB` : `${size} B`);
export const mebibytes = (bytes) => (bytes / 2 ** 20).toFixed(1);

/** A Markdown table. */
export function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

/** Rows of a paired comparison: `[key, label, format]` → label, baseline, candidate, ratio, ratio range. */
export function pairedRows(summary, metrics) {
  return metrics.map(([key, label, format]) => [label, format(summary.baseline[key]), format(summary.candidate[key]), fixed(summary.ratio[key], 3), spread(summary.ratioRange[key])]);
}

/** A ready-server row's ratio per CPU-second: of the server and its PostgreSQL cluster together when there is one. */
export function readyCpuRatio(summary) {
  return summary.ratio.reqPerServiceCpuSec ?? summary.ratio.reqPerCpuSec;
}
