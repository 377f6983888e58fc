import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PortableCase } from '@quantum-chat/conformance';
import { build } from 'esbuild';

const entry = fileURLToPath(new URL('./case-server.ts', import.meta.url));

/**
 * Bundles the case server with its cases into one ES module for any runtime: platform
 * neutral, worker/browser conditions first, nothing left to resolve at run time.
 */
export async function bundleCaseServer(cases: readonly PortableCase[], outDirectory: string): Promise<string> {
  const outfile = join(outDirectory, 'case-server.mjs');
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['worker', 'browser', 'import', 'default'],
    mainFields: ['module', 'main'],
    define: { QC_CASES: JSON.stringify(cases) },
    logLevel: 'error',
  });
  return outfile;
}
