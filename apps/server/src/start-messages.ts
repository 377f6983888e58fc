import type { AddressInfo } from 'node:net';

/**
 * How the user runs this CLI, for the commands the messages suggest. The repository's
 * `pnpm quantum-chat` sets `QUANTUM_CHAT_CLI_NAME`. Otherwise the answer comes from the path
 * this process was started from, never from npm's environment variables (`npm_command` and
 * the like are inherited by every child of an `npx` or `npm run`, whatever actually started
 * us): a bin in a `node_modules/.bin` (npx's cache or a project's own install) is run as
 * `npx @quantum-chat/server`; anything else (a global install, `node dist/cli.js`) is the
 * plain `quantum-chat`.
 */
export function cliName(env: Readonly<Record<string, string | undefined>>, scriptPath: string | undefined): string {
  if (env.QUANTUM_CHAT_CLI_NAME) return env.QUANTUM_CHAT_CLI_NAME;
  const segments = (scriptPath ?? '').split(/[\\/]/);
  const bin = segments.lastIndexOf('.bin');
  if (bin > 0 && segments[bin - 1] === 'node_modules') return 'npx @quantum-chat/server';
  return 'quantum-chat';
}

/** Text in an ASCII frame, so that a one-time secret stands out from the lines around it. */
function framed(lines: readonly string[]): string {
  const width = Math.max(...lines.map((line) => line.length));
  const border = `+${'-'.repeat(width + 4)}+`;
  return [border, ...lines.map((line) => `|  ${line.padEnd(width)}  |`), border].join('\n') + '\n';
}

/** The first start's test key, shown once (on stderr, never in the JSON log stream). */
export function starterKeyMessage(key: string, cli: string): string {
  return framed([
    "First start: created the organisation 'default' (elite plan) and a test API key.",
    'It is shown only this once; store it now:',
    '',
    `API key: ${key}`,
    '',
    `More keys: ${cli} keys create --org default`,
  ]);
}

/** For an organisation that has no key that works now. */
export function noUsableKeyMessage(organisation: string, cli: string, storeOption: string): string {
  return `Organisation '${organisation}' has no usable API key; make one with: ${cli} keys create --org ${organisation}${storeOption}\n`;
}

/** One sentence for a port that is taken, with every way to pick another. */
export function portInUseMessage(host: string, port: number, configFile: string): string {
  const next = port === 0 || port >= 65_535 ? 8081 : port + 1;
  return `quantum-chat serve: port ${port} on ${host} is already in use; pick another with --port ${next}, the PORT environment variable (PORT=${next}) or "port" in ${configFile}.\n`;
}

/** The base URL of a listening address; IPv6 hosts are bracketed. */
export function baseUrlOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** The banner's pointer to a key just printed on stderr (test helpers wait for the key when they see it). */
const starterKeyPointer = 'The test API key made for this first start is in the frame above (on stderr).';

/** What a started server prints: where to click first, then the API's base URLs. */
export function listeningBanner(baseUrl: string, options: { starterKeyShown: boolean }): string {
  return [
    `Quantum chat server listening on ${baseUrl}`,
    `  Playground:     ${baseUrl}/`,
    `  API reference:  ${baseUrl}/docs`,
    `  API base URL:   ${baseUrl}/v1   (OpenAI stream format: ${baseUrl}/compat/v1)`,
    ...(options.starterKeyShown ? [starterKeyPointer] : []),
    'Stop it with Ctrl-C.',
    '',
  ].join('\n');
}

/** A size the way people read it: `734.2 MiB`, `4.1 GiB`. */
function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

/** What a loaded local model is, once it is: file, size, where it runs, for which ids. */
export function localModelBanner(
  summary: { file: string; sizeBytes: number; architecture: string; gpu: false | string; gpuLayers: number; contextSize: number; parallel: number; loadMs: number },
  ids: readonly string[],
): string {
  const where = summary.gpu === false || summary.gpuLayers === 0 ? 'CPU' : `GPU (${summary.gpu}, ${summary.gpuLayers} layers)`;
  return `Model loaded in ${summary.loadMs} ms: ${summary.file} (${formatBytes(summary.sizeBytes)}, ${summary.architecture}) on ${where}, context ${summary.contextSize} tokens, ${summary.parallel} at once; serving ${ids.join(', ')}.\n`;
}
