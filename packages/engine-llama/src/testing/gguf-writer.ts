/**
 * A minimal writer of the GGUF v3 container (llama.cpp's model file): header, key/value
 * metadata, tensor directory, aligned tensor data. Enough to build test models offline.
 */

const valueTypes = { uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9 } as const;

/** Tensor element types this writer emits. */
export const ggmlTypes = { f32: 0, f16: 1 } as const;

export type GgufValue =
  | { type: 'uint32' | 'int32' | 'float32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; of: 'string'; value: readonly string[] }
  | { type: 'array'; of: 'int32' | 'float32'; value: readonly number[] };

export interface GgufTensor {
  name: string;
  /** ggml order: the first dimension varies fastest. */
  dims: readonly number[];
  type: keyof typeof ggmlTypes;
  data: Uint8Array;
}

const alignment = 32;

/** Growable little-endian byte buffer. */
class ByteSink {
  private bytes = new Uint8Array(1024);
  private view = new DataView(this.bytes.buffer);
  length = 0;

  private reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + extra));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }
  u32(value: number): void {
    this.reserve(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
  }
  i32(value: number): void {
    this.reserve(4);
    this.view.setInt32(this.length, value, true);
    this.length += 4;
  }
  u64(value: number): void {
    this.reserve(8);
    this.view.setBigUint64(this.length, BigInt(value), true);
    this.length += 8;
  }
  f32(value: number): void {
    this.reserve(4);
    this.view.setFloat32(this.length, value, true);
    this.length += 4;
  }
  raw(data: Uint8Array): void {
    this.reserve(data.length);
    this.bytes.set(data, this.length);
    this.length += data.length;
  }
  string(text: string): void {
    const encoded = new TextEncoder().encode(text);
    this.u64(encoded.length);
    this.raw(encoded);
  }
  padTo(multiple: number): void {
    const padding = (multiple - (this.length % multiple)) % multiple;
    this.raw(new Uint8Array(padding));
  }
  result(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

function writeValue(sink: ByteSink, value: GgufValue): void {
  sink.u32(valueTypes[value.type]);
  switch (value.type) {
    case 'uint32':
      return sink.u32(value.value);
    case 'int32':
      return sink.i32(value.value);
    case 'float32':
      return sink.f32(value.value);
    case 'bool':
      return sink.raw(new Uint8Array([value.value ? 1 : 0]));
    case 'string':
      return sink.string(value.value);
    case 'array':
      sink.u32(valueTypes[value.of]);
      sink.u64(value.value.length);
      for (const item of value.value) {
        if (value.of === 'string') sink.string(item as string);
        else if (value.of === 'int32') sink.i32(item as number);
        else sink.f32(item as number);
      }
  }
}

/** The bytes of a GGUF v3 file holding `metadata` and `tensors`. */
export function encodeGguf(metadata: Readonly<Record<string, GgufValue>>, tensors: readonly GgufTensor[]): Uint8Array {
  const sink = new ByteSink();
  sink.raw(new TextEncoder().encode('GGUF'));
  sink.u32(3);
  sink.u64(tensors.length);
  sink.u64(Object.keys(metadata).length);
  for (const [key, value] of Object.entries(metadata)) {
    sink.string(key);
    writeValue(sink, value);
  }
  let offset = 0;
  for (const tensor of tensors) {
    sink.string(tensor.name);
    sink.u32(tensor.dims.length);
    for (const dim of tensor.dims) sink.u64(dim);
    sink.u32(ggmlTypes[tensor.type]);
    sink.u64(offset);
    offset += Math.ceil(tensor.data.length / alignment) * alignment;
  }
  sink.padTo(alignment);
  for (const tensor of tensors) {
    sink.raw(tensor.data);
    sink.padTo(alignment);
  }
  return sink.result();
}
