const encoder = new TextEncoder();

export interface SignedContent {
  /** The signature's `t`, as sent. */
  timestamp: string;
  /** The raw body bytes the signature covers. */
  body: Uint8Array;
  /** The API key the request was sent with. */
  apiKey: string;
}

/**
 * What a replay guard claims for a signed request (decisions §7): `t=<t>,sha256=<hex>` over the
 * timestamp, the API key and the body. Not the `v1` text: during a rotation the same content
 * carries one `v1` per secret, and each alone would otherwise pass as new. Fixed in length
 * whatever the body, and the key is hashed, never stored.
 *
 * @example
 * const claim = await signedContentClaim({ timestamp: '1700000000', body, apiKey });
 */
export async function signedContentClaim(content: SignedContent): Promise<string> {
  // Newlines separate the parts: `t` is digits and a key never holds a newline.
  const head = encoder.encode(`${content.timestamp}\n${content.apiKey}\n`);
  const bytes = new Uint8Array(head.length + content.body.length);
  bytes.set(head);
  bytes.set(content.body, head.length);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `t=${content.timestamp},sha256=${Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}
