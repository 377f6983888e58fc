/** The longest `x-quantum-ignored-params` value (decisions §2). */
export const maxIgnoredParamsHeaderLength = 1000;

const separator = ', ';
/** The last element when names were left out: three ASCII dots (header values stay ASCII). */
const more = '...';
const textEncoder = new TextEncoder();

/**
 * A field name as a header can carry it: visible ASCII stays, anything else (non-ASCII,
 * control characters, `%`, `,`, spaces) is percent-encoded as UTF-8, lone surrogates as
 * U+FFFD. A raw name like `"naïve"` or `"a\r\nb"` would make Node refuse the whole response.
 * Returns `undefined` as soon as the encoding passes `room` characters: a name of a megabyte
 * is not encoded whole only to be left out.
 */
function encodeName(name: string, room: number): string | undefined {
  if (name.length > room) return undefined;
  let safe = '';
  for (const character of name) {
    const code = character.codePointAt(0)!;
    if (code > 0x20 && code < 0x7f && character !== '%' && character !== ',') safe += character;
    else for (const byte of textEncoder.encode(character)) safe += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    if (safe.length > room) return undefined;
  }
  return safe;
}

/**
 * The `x-quantum-ignored-params` value for the unknown top-level fields of a request, in body
 * order: names are listed whole while the value stays within 1,000 characters; when one does
 * not fit, the list ends with a last element `...` saying that more were left out. Names are
 * never cut, and no more of a flood of names is read than the header can hold.
 */
export function ignoredParamsHeader(names: readonly string[]): string {
  let header = '';
  // The length of the longest prefix of whole names that still leaves room for `, ...`.
  let cutAt = 0;
  for (const name of names) {
    const start = header === '' ? 0 : header.length + separator.length;
    const encoded = encodeName(name, maxIgnoredParamsHeaderLength - start);
    if (encoded === undefined) return cutAt === 0 ? more : `${header.slice(0, cutAt)}${separator}${more}`;
    header = header === '' ? encoded : `${header}${separator}${encoded}`;
    if (header.length + separator.length + more.length <= maxIgnoredParamsHeaderLength) cutAt = header.length;
  }
  return header;
}
