/**
 * The part of `root` a local `$ref` names: `#` itself or a `#/...` JSON Pointer (percent- and
 * `~`-escapes decoded). A remote or malformed reference resolves to `undefined`: nothing
 * outside the schema at hand is ever followed.
 */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    if (typeof current !== 'object' || current === null) return undefined;
    let key = raw;
    try {
      key = decodeURIComponent(raw);
    } catch {
      // left as written
    }
    current = (current as Record<string, unknown>)[key.replace(/~1/gu, '/').replace(/~0/gu, '~')];
  }
  return current;
}
