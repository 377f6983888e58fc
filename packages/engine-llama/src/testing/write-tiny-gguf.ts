import { writeFile } from 'node:fs/promises';
import { encodeGguf, type GgufTensor, type GgufValue } from './gguf-writer.js';

/** GPT-2's byte-to-character map: every byte gets a printable character, so a vocabulary of 256 covers any text. */
function byteCharacters(): string[] {
  const printable = (byte: number) => (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || byte >= 174;
  const characters: string[] = [];
  let next = 256;
  for (let byte = 0; byte < 256; byte++) characters.push(String.fromCodePoint(printable(byte) ? byte : next++));
  return characters;
}

/** ChatML, the template the GGUF carries; node-llama-cpp reads it as it would a real model's. */
export const tinyChatTemplate =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const specialTokens = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];

export interface TinyModelOptions {
  /** Seed of the random weights (the same seed writes the same file). */
  seed?: number;
  /** Trained context length the file declares. */
  contextLength?: number;
  /** The architecture the file names (default `llama`); another name makes a file llama.cpp cannot load. */
  architecture?: string;
  /**
   * Declare feed-forward layers this wide without writing their weights: a file of a few KB
   * that claims to need that much memory (for the too-large check, which reads the header).
   */
  claimedFeedForward?: number;
  /** Width of the model (default 32); a benchmark makes it larger so a token costs what a small real model's does. */
  embedding?: number;
  /** Transformer blocks (default 1). */
  layers?: number;
  /** Attention heads (default 2); `embedding / heads` is the head size. */
  heads?: number;
}

/** Deterministic pseudo-random numbers (mulberry32). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function f32Tensor(name: string, dims: number[], fill: () => number): GgufTensor {
  const values = new Float32Array(dims.reduce((product, dim) => product * dim, 1));
  for (let index = 0; index < values.length; index++) values[index] = fill();
  return { name, dims, type: 'f32', data: new Uint8Array(values.buffer) };
}

/**
 * The bytes of a tiny `llama`-architecture GGUF: random weights, a byte-level vocabulary (one
 * token per byte, plus the ChatML control tokens) and a ChatML chat template. It is a real
 * model to llama.cpp (it loads, tokenizes, runs on CPU), it just says nothing sensible.
 */
export function tinyGgufBytes(options: TinyModelOptions = {}): Uint8Array {
  const random = seededRandom(options.seed ?? 1);
  const weight = (scale: number) => () => (random() * 2 - 1) * scale;
  const embedding = options.embedding ?? 32;
  const claimed = options.claimedFeedForward;
  const feedForward = claimed ?? embedding * 2;
  const arch = options.architecture ?? 'llama';
  const heads = options.heads ?? 2;
  const layers = options.layers ?? 1;
  const tokens = [...byteCharacters(), ...specialTokens];
  const metadata: Record<string, GgufValue> = {
    'general.architecture': { type: 'string', value: arch },
    'general.name': { type: 'string', value: 'tiny-test-model' },
    'general.alignment': { type: 'uint32', value: 32 },
    [`${arch}.context_length`]: { type: 'uint32', value: options.contextLength ?? 2048 },
    [`${arch}.embedding_length`]: { type: 'uint32', value: embedding },
    [`${arch}.block_count`]: { type: 'uint32', value: layers },
    [`${arch}.feed_forward_length`]: { type: 'uint32', value: feedForward },
    [`${arch}.attention.head_count`]: { type: 'uint32', value: heads },
    [`${arch}.attention.head_count_kv`]: { type: 'uint32', value: heads },
    [`${arch}.attention.layer_norm_rms_epsilon`]: { type: 'float32', value: 1e-5 },
    [`${arch}.rope.dimension_count`]: { type: 'uint32', value: embedding / heads },
    [`${arch}.vocab_size`]: { type: 'uint32', value: tokens.length },
    'tokenizer.ggml.model': { type: 'string', value: 'gpt2' },
    'tokenizer.ggml.pre': { type: 'string', value: 'default' },
    'tokenizer.ggml.tokens': { type: 'array', of: 'string', value: tokens },
    // 1: normal, 3: control.
    'tokenizer.ggml.token_type': { type: 'array', of: 'int32', value: tokens.map((_, index) => (index < 256 ? 1 : 3)) },
    'tokenizer.ggml.merges': { type: 'array', of: 'string', value: [] },
    'tokenizer.ggml.bos_token_id': { type: 'uint32', value: 256 },
    'tokenizer.ggml.eos_token_id': { type: 'uint32', value: 258 },
    'tokenizer.ggml.add_bos_token': { type: 'bool', value: false },
    'tokenizer.chat_template': { type: 'string', value: tinyChatTemplate },
  };
  // No `output.weight`: llama.cpp then ties the output to the embedding, which halves the file.
  const tensors: GgufTensor[] = [
    f32Tensor('token_embd.weight', [embedding, tokens.length], weight(1)),
    f32Tensor('output_norm.weight', [embedding], () => 1),
  ];
  const scale = 1 / Math.sqrt(embedding);
  for (let layer = 0; layer < layers; layer++) {
    const prefix = `blk.${layer}.`;
    tensors.push(
      f32Tensor(`${prefix}attn_norm.weight`, [embedding], () => 1),
      f32Tensor(`${prefix}attn_q.weight`, [embedding, embedding], weight(scale)),
      f32Tensor(`${prefix}attn_k.weight`, [embedding, embedding], weight(scale)),
      f32Tensor(`${prefix}attn_v.weight`, [embedding, embedding], weight(scale)),
      f32Tensor(`${prefix}attn_output.weight`, [embedding, embedding], weight(scale)),
      f32Tensor(`${prefix}ffn_norm.weight`, [embedding], () => 1),
    );
    if (claimed !== undefined) {
      for (const [name, dims] of [['ffn_gate', [embedding, claimed]], ['ffn_up', [embedding, claimed]], ['ffn_down', [claimed, embedding]]] as const) {
        tensors.push({ name: `${prefix}${name}.weight`, dims, type: 'f32', data: new Uint8Array(0) });
      }
    } else {
      tensors.push(
        f32Tensor(`${prefix}ffn_gate.weight`, [embedding, feedForward], weight(scale)),
        f32Tensor(`${prefix}ffn_up.weight`, [embedding, feedForward], weight(scale)),
        f32Tensor(`${prefix}ffn_down.weight`, [feedForward, embedding], weight(1 / Math.sqrt(feedForward))),
      );
    }
  }
  return encodeGguf(metadata, tensors);
}

/** Writes {@link tinyGgufBytes} to `path` (for tests and benchmarks that need a model file offline). */
export async function writeTinyGguf(path: string, options: TinyModelOptions = {}): Promise<string> {
  await writeFile(path, tinyGgufBytes(options));
  return path;
}
