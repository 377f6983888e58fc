import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { importNodeLlamaCpp } from './load-llama-model.js';
import { ModelLoadError } from './model-load-error.js';

/** How long the reachability probe of the model host waits before saying it is unreachable. */
const probeTimeoutMs = 10_000;

/** Where a `hf:` model comes from: node-llama-cpp's endpoint rule (`MODEL_ENDPOINT`, `HF_ENDPOINT`, else Hugging Face). */
function huggingFaceEndpoint(env: Readonly<Record<string, string | undefined>>): string {
  const configured = env.MODEL_ENDPOINT || env.HF_ENDPOINT;
  return configured !== undefined && /^https?:\/\//.test(configured) ? configured : 'https://huggingface.co/';
}

const networkFailures: Record<string, string> = {
  ENOTFOUND: 'its name does not resolve',
  EAI_AGAIN: 'its name does not resolve',
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ENETUNREACH: 'no route to it',
  EHOSTUNREACH: 'no route to it',
};

function describeNetworkFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError') return `no answer within ${probeTimeoutMs / 1000} s`;
  const code = cause?.code;
  if (code !== undefined) return networkFailures[code] !== undefined ? `${networkFailures[code]}: ${code}` : code;
  return cause?.message ?? (error as Error).message;
}

/** Writes `downloaded / total` on one line of the terminal (stderr), at most every whole percent. */
function progressLine(write: (text: string) => void, uri: string) {
  let shown = -1;
  return ({ totalSize, downloadedSize }: { totalSize: number; downloadedSize: number }) => {
    const percent = totalSize > 0 ? Math.floor((downloadedSize / totalSize) * 100) : 0;
    if (percent === shown) return;
    shown = percent;
    const width = 30;
    const filled = Math.round((percent / 100) * width);
    write(`\rDownloading ${uri} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% of ${(totalSize / 2 ** 20).toFixed(1)} MiB${percent === 100 ? '\n' : ''}`);
  };
}

export interface ResolveModelSourceOptions {
  /** Where a relative path is resolved; `process.cwd()` by default. */
  cwd?: string;
  /** Where `hf:` models are downloaded to and found again. */
  directory: string;
  /** Read for `HF_ENDPOINT` / `MODEL_ENDPOINT` (a Hugging Face mirror); `process.env` by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where a download draws its one-line progress bar (a terminal's stderr); none by default. */
  progress?: (text: string) => void;
}

/**
 * The local path of a model: a path as it is (resolved against `cwd`), or a
 * `hf:<user>/<repo>/<file>.gguf` URI downloaded once into `directory` (found there on later
 * calls, without the network). A host that cannot be reached is a {@link ModelLoadError}
 * whose message says so in one sentence.
 *
 * @example
 * const modelPath = await resolveModelSource('hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf', { directory: './models' });
 */
export async function resolveModelSource(source: string, options: ResolveModelSourceOptions): Promise<string> {
  const cwd = options.cwd ?? process.cwd();
  if (!source.startsWith('hf:')) return resolve(cwd, source);
  const file = source;
  const { resolveModelFile } = await importNodeLlamaCpp();
  const directory = resolve(cwd, options.directory);
  await mkdir(directory, { recursive: true });
  // Already downloaded: no network at all.
  const existing = await resolveModelFile(file, { directory, download: false, cli: false }).catch(() => undefined);
  if (existing !== undefined) return existing;
  const endpoint = huggingFaceEndpoint(options.env ?? process.env);
  try {
    await fetch(endpoint, { method: 'HEAD', signal: AbortSignal.timeout(probeTimeoutMs) });
  } catch (error) {
    throw new ModelLoadError(
      `Cannot download ${file}: ${new URL(endpoint).host} is not reachable from this machine (${describeNetworkFailure(error)}); download the .gguf file where it is reachable and pass its path instead.`,
      'unreachable',
      { cause: error },
    );
  }
  try {
    return await resolveModelFile(file, { directory, cli: false, endpoints: { huggingFace: endpoint }, ...(options.progress !== undefined ? { onProgress: progressLine(options.progress, file) } : {}) });
  } catch (error) {
    throw new ModelLoadError(`Cannot download ${file}: ${(error as Error).message.split('\n')[0]}`, 'unreachable', { cause: error });
  }
}
