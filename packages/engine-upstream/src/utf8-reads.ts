import { isAscii } from 'node:buffer';

/** Text of an upstream body, a read at a time: what one streaming `TextDecoder` would give. */
export interface Utf8Reads {
  /** The text of one read; the first bytes of a character cut at its end wait for the next read. */
  decode(bytes: Uint8Array): string;
  /** What is left at the end of the body: a character cut short becomes U+FFFD, as TextDecoder does. */
  end(): string;
}

const streamOption: TextDecodeOptions = { stream: true };

/**
 * A streaming UTF-8 decoder with a shortcut for reads that are all ASCII. Why: Node 20's
 * `TextDecoder` decodes through ICU at the same cost whatever the bytes, about six times what a
 * Latin-1 copy of the same ASCII costs, and most reads of a relayed stream are ASCII (the
 * envelope always is). An ASCII read is copied when no character is left open from the read
 * before; any other read goes through the one `TextDecoder`. A read that ends on an ASCII byte
 * leaves the decoder holding nothing (UTF-8 resynchronises on every ASCII byte), so the
 * shortcut may follow it.
 */
export function createUtf8Reads(): Utf8Reads {
  let decoder: TextDecoder | undefined;
  /** The decoder may hold the first bytes of a character: the last read it decoded ended on a non-ASCII byte. */
  let open = false;
  return {
    decode(bytes) {
      if (bytes.byteLength === 0) return '';
      if (!open && isAscii(bytes)) return latin1Text(bytes);
      // ignoreBOM: a leading BOM stays in the text; the SSE decoder strips it, once.
      decoder ??= new TextDecoder('utf-8', { ignoreBOM: true });
      open = bytes[bytes.byteLength - 1]! >= 0x80;
      return decoder.decode(bytes, streamOption);
    },
    end() {
      if (!open) return '';
      open = false;
      return decoder!.decode();
    },
  };
}

/** ASCII bytes as a string: Latin-1 decodes them to the same characters, without a check per byte. */
function latin1Text(bytes: Uint8Array): string {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buffer.toString('latin1');
}
