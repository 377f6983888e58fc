/** A JSON Pointer (`/items/0/name`) written the JavaScript way (`items[0].name`), `(root)` for the value itself. */
function toPropertyPath(pointer: string): string {
  if (pointer === '') return '(root)';
  let out = '';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/gu, '/').replace(/~0/gu, '~');
    out += /^\d+$/u.test(segment) ? `[${segment}]` : out === '' ? segment : `.${segment}`;
  }
  return out;
}

/**
 * Checks `value` against a JSON Schema with the core's validator (`@quantum-chat/core/json-schema`:
 * it interprets the schema without `new Function`, so strict CSPs allow it, and runs patterns in
 * linear time). It is loaded on first use, so clients that never check tool arguments do not
 * load it. Returns every problem, each prefixed by its path (`items[0].name`); a schema the
 * validator cannot use (an unresolved `$ref`) checks nothing.
 *
 * @example
 * await validateJsonSchema({ type: 'object', required: ['city'] }, {}); // ['(root): Instance does not have required property "city"']
 * @internal
 */
export async function validateJsonSchema(schema: unknown, value: unknown): Promise<string[]> {
  const { validateWithSchema } = await import('@quantum-chat/core/json-schema');
  return validateWithSchema(schema, value, { all: true })
    .filter((problem) => problem.schemaError !== true)
    .map((problem) => `${toPropertyPath(problem.path)}: ${problem.message.replace(/\.$/u, '')}`);
}
