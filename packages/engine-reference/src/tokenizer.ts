import { countTokens, decode, decodeGenerator, encode } from 'gpt-tokenizer';

/*
 * Every count in this package goes through these three functions, so prompt usage,
 * completion usage and the `maxTokens` cut all agree. The encoding is o200k_base (the
 * default of `gpt-tokenizer`). Special-token text such as `<|endoftext|>` in a user
 * message is encoded as plain text instead of throwing, because it is data, not control.
 */
const plainText = { disallowedSpecial: new Set<string>() };

/** Tokens of `text` under o200k_base, special-token text treated as plain text. @internal */
export function encodeText(text: string): number[] {
  return encode(text, plainText);
}

/** Number of o200k_base tokens in `text`. @internal */
export function countTextTokens(text: string): number {
  return text === '' ? 0 : countTokens(text, plainText);
}

/** Text of `tokens`. A cut inside a multibyte character ends in U+FFFD. @internal */
export function decodeTokens(tokens: readonly number[]): string {
  return decode(tokens);
}

/**
 * Splits `text` into one piece per token (a token that ends inside a multibyte character
 * is merged with the next), so the pieces always concatenate back to `text`.
 * @internal
 */
export function splitIntoTokenPieces(text: string): string[] {
  if (text === '') return [];
  const pieces = [...decodeGenerator(encodeText(text))].filter((piece) => piece !== '');
  // decodeGenerator buffers incomplete UTF-8, so this holds; keep a safe path regardless.
  return pieces.join('') === text ? pieces : [text];
}
