// The paired protocol: after a warm-up of each side, baseline and candidate
// alternate (ABBA order, so drift hits both alike); each metric's figure is the median of the
// per-pair ratios candidate / baseline (and of the per-pair differences, for latencies), and
// each side's figure the median of its runs.
import { median, range } from './stats.mjs';

/**
 * @param {object} options
 * @param {string} options.label           printed with progress lines
 * @param {(side: 'baseline' | 'candidate', seconds: number) => Promise<Record<string, number>>} options.measure
 * @param {{ pairs: number, seconds: number, warmupSeconds: number }} options.protocol
 */
export async function runPaired({ label, measure, protocol, log = console.log }) {
  await measure('baseline', protocol.warmupSeconds);
  await measure('candidate', protocol.warmupSeconds);
  const runs = { baseline: [], candidate: [] };
  const ratios = [];
  const differences = [];
  for (let pair = 0; pair < protocol.pairs; pair++) {
    const order = pair % 2 === 0 ? ['baseline', 'candidate'] : ['candidate', 'baseline'];
    const result = {};
    for (const side of order) result[side] = await measure(side, protocol.seconds);
    runs.baseline.push(result.baseline);
    runs.candidate.push(result.candidate);
    const ratio = {};
    const difference = {};
    for (const key of Object.keys(result.candidate)) {
      ratio[key] = result.candidate[key] / result.baseline[key];
      difference[key] = result.candidate[key] - result.baseline[key];
    }
    ratios.push(ratio);
    differences.push(difference);
    log(`  ${label} pair ${pair + 1}/${protocol.pairs}: ${formatMetrics(result.baseline)} | ${formatMetrics(result.candidate)} | ratio ${formatMetrics(ratio, 3)}`);
  }
  return summarise(runs, ratios, differences);
}

function summarise(runs, ratios, differences) {
  const keys = Object.keys(runs.candidate[0] ?? {});
  const pick = (list, key) => list.map((entry) => entry[key]);
  const summary = { baseline: {}, candidate: {}, ratio: {}, ratioRange: {}, difference: {}, pairs: ratios.length };
  for (const key of keys) {
    summary.baseline[key] = median(pick(runs.baseline, key));
    summary.candidate[key] = median(pick(runs.candidate, key));
    summary.ratio[key] = median(pick(ratios, key));
    summary.ratioRange[key] = range(pick(ratios, key));
    summary.difference[key] = median(pick(differences, key));
  }
  return summary;
}

function formatMetrics(metrics, digits = 0) {
  return Object.entries(metrics)
    .map(([key, value]) => `${key}=${Number.isFinite(value) ? value.toFixed(Math.abs(value) < 10 ? Math.max(digits, 3) : digits) : value}`)
    .join(' ');
}
