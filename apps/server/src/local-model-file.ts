import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

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
    write(`\rDownloading ${uri} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% of ${(totalSize / 2 ** 20).toFixed(0)} MiB${percent === 100 ? '\n' : ''}`);
  };
}

export interface ResolveModelFileOptions {
  cwd: string;
  dataDir: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The progress bar's output (the server's stderr). */
  progress?: (text: string) => void;
}

/** A model file that cannot be had, in one sentence. */
export class ModelFileError extends Error {
  override readonly name = 'ModelFileError';
}

/**
 * The local path of a configured model: a path as it is (relative to the working directory),
 * or a `hf:<user>/<repo>/<file>.gguf` URI downloaded once into `<dataDir>/models` (later starts
 * find it there). A host that cannot be reached is said in one sentence, not a stack.
 */
export async function resolveLocalModelFile(file: string, options: ResolveModelFileOptions): Promise<string> {
  if (!file.startsWith('hf:')) return resolve(options.cwd, file);
  const { importNodeLlamaCpp } = await import('@quantum-chat/engine-llama');
  const { resolveModelFile } = await importNodeLlamaCpp();
  const directory = join(resolve(options.cwd, options.dataDir), 'models');
  await mkdir(directory, { recursive: true });
  // Already downloaded: no network at all.
  const existing = await resolveModelFile(file, { directory, download: false, cli: false }).catch(() => undefined);
  if (existing !== undefined) return existing;
  const endpoint = huggingFaceEndpoint(options.env);
  try {
    await fetch(endpoint, { method: 'HEAD', signal: AbortSignal.timeout(probeTimeoutMs) });
  } catch (error) {
    throw new ModelFileError(
      `Cannot download ${file}: ${new URL(endpoint).host} is not reachable from this machine (${describeNetworkFailure(error)}); download the .gguf file where it is reachable and pass its path with --model.`,
    );
  }
  try {
    return await resolveModelFile(file, { directory, cli: false, ...(options.progress !== undefined ? { onProgress: progressLine(options.progress, file) } : {}) });
  } catch (error) {
    throw new ModelFileError(`Cannot download ${file}: ${(error as Error).message.split('\n')[0]}`);
  }
}
