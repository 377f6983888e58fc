import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { committedCompatResultsPath, compatResultsPathFor, lastRunCompatResultsPath } from './support/compat-recorder.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

describe('the compatibility tables', () => {
  it('should be written by a test run to an ignored file, and to the committed one only when recording', () => {
    expect(compatResultsPathFor({})).toBe(lastRunCompatResultsPath);
    expect(compatResultsPathFor({ QUANTUM_CHAT_INTEROP_RECORD: '1' })).toBe(committedCompatResultsPath);
    const ignored = execFileSync('git', ['check-ignore', '--no-index', lastRunCompatResultsPath], { cwd: repoRoot, encoding: 'utf8' }).trim();
    expect(ignored).not.toBe('');
  });

  it('should keep the committed results free of timestamps, so that recording twice gives the same file', () => {
    const text = readFileSync(committedCompatResultsPath, 'utf8');
    expect(text).not.toMatch(/generatedAt|finishedAt|\d{4}-\d\d-\d\dT\d\d:\d\d/u);
  });

  // While recording, the README is rendered after the run (`pnpm compat:record`).
  it.skipIf(process.env.QUANTUM_CHAT_INTEROP_RECORD === '1')('should match the README, rendered from the committed results', () => {
    const output = execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/render-compat-table.mjs', import.meta.url)), '--check'], { encoding: 'utf8' });
    expect(output).toContain('up to date');
  });
});
