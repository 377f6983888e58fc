// JSON Schema's content keywords (`contentMediaType: application/json` + `contentSchema`) are
// annotations: validators do not decode the string by default. To check what a stream's
// `data` holds, an event is validated in a decoded form: each string field becomes
// `{ raw: <the string>, json?: <its JSON value, if it parses> }`, and each schema of a field
// is rewritten to match: its string keywords go under `raw`, and a JSON content schema becomes
// `json` (required). Every branch keeps its meaning, so `anyOf: [{const: "[DONE]"}, JSON of X]`
// still accepts exactly `[DONE]` or JSON text of an X, and nothing is guessed from the value.

type Schema = Record<string, unknown> | boolean;

/** Keywords that combine subschemas; they stay, with each subschema rewritten. */
const applicators = ['allOf', 'anyOf', 'oneOf'] as const;
const singleApplicators = ['not', 'if', 'then', 'else'] as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema of one field (a string on the wire), rewritten for its decoded form. */
function decodeFieldSchema(schema: unknown, where: string): Schema {
  if (typeof schema === 'boolean') return schema;
  if (!isObject(schema)) throw new TypeError(`${where}: not a schema`);
  if (typeof schema.$ref === 'string') throw new TypeError(`${where}: a $ref at the level of an event's field is not supported; write the field's schema inline`);
  const raw: Record<string, unknown> = {};
  const decoded: Record<string, unknown> = { type: 'object' };
  const properties: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((applicators as readonly string[]).includes(key) && Array.isArray(value)) decoded[key] = value.map((item, index) => decodeFieldSchema(item, `${where}/${key}/${index}`));
    else if ((singleApplicators as readonly string[]).includes(key)) decoded[key] = decodeFieldSchema(value, `${where}/${key}`);
    else if (key === 'contentSchema' || key === 'contentMediaType' || key === 'contentEncoding') continue;
    else raw[key] = value;
  }
  if (schema.contentMediaType !== undefined) {
    if (schema.contentMediaType !== 'application/json' || schema.contentEncoding !== undefined) throw new TypeError(`${where}: only contentMediaType application/json (without contentEncoding) is supported`);
    properties.json = schema.contentSchema ?? true;
    decoded.required = ['json'];
  }
  if (Object.keys(raw).length > 0) properties.raw = raw;
  if (Object.keys(properties).length > 0) decoded.properties = properties;
  return decoded;
}

/**
 * An event's item schema rewritten for decoded events (see `decodeEventItem`). `resolve` turns
 * a `$ref` at the event level into its schema (the event's fields must be written inline).
 *
 * @example
 * decodeItemSchema({ properties: { data: { type: 'string', contentMediaType: 'application/json', contentSchema: { type: 'object' } } } }, resolve);
 * // { properties: { data: { type: 'object', properties: { raw: { type: 'string' }, json: { type: 'object' } }, required: ['json'] } } }
 */
export function decodeItemSchema(schema: unknown, resolve: (ref: string) => unknown, where = '#'): Schema {
  if (typeof schema === 'boolean') return schema;
  if (!isObject(schema)) throw new TypeError(`${where}: not a schema`);
  const { $ref, ...rest } = schema;
  const parts: Schema[] = [];
  if (typeof $ref === 'string') parts.push(decodeItemSchema(resolve($ref), resolve, $ref));
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === 'properties' && isObject(value)) {
      copy.properties = Object.fromEntries(Object.entries(value).map(([name, field]) => [name, decodeFieldSchema(field, `${where}/properties/${name}`)]));
    } else if ((applicators as readonly string[]).includes(key) && Array.isArray(value)) {
      copy[key] = value.map((item, index) => decodeItemSchema(item, resolve, `${where}/${key}/${index}`));
    } else if ((singleApplicators as readonly string[]).includes(key)) {
      copy[key] = decodeItemSchema(value, resolve, `${where}/${key}`);
    } else {
      copy[key] = value;
    }
  }
  return parts.length === 0 ? copy : { allOf: [...parts, copy] };
}

/** An event in the decoded form `decodeItemSchema` expects: every field `{ raw, json? }`. */
export function decodeEventItem(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(item).map(([name, value]) => {
      if (typeof value !== 'string') return [name, { raw: value }];
      try {
        return [name, { raw: value, json: JSON.parse(value) as unknown }];
      } catch {
        return [name, { raw: value }];
      }
    }),
  );
}
