import { open, stat } from 'node:fs/promises';
import { ModelLoadError } from './model-load-error.js';

const ggufMagic = 'GGUF';

/** The file's size once it is known to exist and start like a GGUF file; else a {@link ModelLoadError}. */
export async function checkModelFile(path: string): Promise<number> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new ModelLoadError(`The model path ${path} is not a file.`, 'missing');
    size = info.size;
  } catch (error) {
    if (error instanceof ModelLoadError) throw error;
    throw new ModelLoadError(`The model file ${path} does not exist.`, 'missing', { cause: error });
  }
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    if (bytesRead < 4 || head.toString('latin1') !== ggufMagic) {
      throw new ModelLoadError(`The file ${path} is not a GGUF model (it does not start with the GGUF signature); convert it with llama.cpp's convert_hf_to_gguf.py or download a .gguf file.`, 'not-gguf');
    }
  } finally {
    await handle.close();
  }
  return size;
}
