// Runs the whole vitest suite once; with QC_VITEST_JSON set (CI), also writes JSON results.
import { spawnSync } from 'node:child_process';

const args = ['vitest', 'run', ...process.argv.slice(2)];
if (process.env.QC_VITEST_JSON) {
  args.push('--reporter=default', '--reporter=json', `--outputFile.json=${process.env.QC_VITEST_JSON}`);
}
const result = spawnSync('npx', args, { stdio: 'inherit' });
process.exit(result.status ?? 1);
