import { h, type Child } from '../dom.js';
import { description } from './render-text.js';
import { constraintsOf, narrowedRef, nestedObjectsOf, refName, typeSummary, variantsOf, type Schema } from './schema-summary.js';

/** Deeper than this, nested objects are only named: the reader follows the links. */
const maxDepth = 5;

/** A type, linked to its schema section when it is a `$ref`. */
export function typeLink(schema: unknown): HTMLElement {
  const ref = typeof schema === 'object' && schema !== null ? (schema as Schema).$ref : undefined;
  if (typeof ref === 'string') return h('a', { class: 'type', href: `#schema-${refName(ref)}` }, refName(ref));
  const narrowed = typeof schema === 'object' && schema !== null ? narrowedRef(schema as Schema) : undefined;
  if (narrowed !== undefined) return typeLink({ $ref: narrowed });
  // JSON text of a named schema (an event's `data`): the link goes to that schema.
  const content = typeof schema === 'object' && schema !== null && (schema as Schema).contentMediaType === 'application/json' ? (schema as Schema).contentSchema : undefined;
  if (typeof content === 'object' && content !== null && typeof (content as Schema).$ref === 'string') return h('span', { class: 'type' }, 'JSON ', typeLink(content));
  return h('span', { class: 'type' }, typeSummary(schema));
}

function propertyRow(name: string, property: Schema, required: boolean, depth: number): HTMLElement {
  const nested = typeof property.$ref === 'string' ? [] : nestedObjectsOf(property);
  const constraints = constraintsOf(property);
  return h(
    'tr',
    {},
    h('td', { class: 'property-name' }, h('code', {}, name), required && h('span', { class: 'required', title: 'required' }, 'required')),
    h('td', {}, typeLink(property)),
    h(
      'td',
      {},
      description(property.description),
      constraints.length > 0 && h('p', { class: 'constraints' }, constraints.join(' · ')),
      nested.length > 0 && depth < maxDepth && h('details', { class: 'nested' }, h('summary', {}, nested.length === 1 ? 'Fields' : `${nested.length} shapes`), ...nested.map((object) => renderSchema(object, depth + 1))),
    ),
  );
}

/** A variant with fields of its own to show: an object, or a narrowing of its parent's fields (an event's `data`). */
const hasFields = (variant: Schema) => nestedObjectsOf(variant).length > 0 || (typeof variant.properties === 'object' && variant.properties !== null);
const propertiesOf = (schema: Schema) => (typeof schema.properties === 'object' && schema.properties !== null ? (schema.properties as Record<string, Schema>) : {});
const discriminates = (property: Schema) => 'const' in property || (Array.isArray(property.enum) && property.enum.length <= 3);

/**
 * A union variant's name: its discriminating constant (`role: "user"`) when it has one; a
 * variant without the field its siblings discriminate on is `event: absent`; else its type.
 */
function variantLabel(variant: Schema, siblings: Schema[]): HTMLElement {
  if (typeof variant.$ref === 'string') return typeLink(variant);
  const discriminant = Object.entries(propertiesOf(variant)).find(([, property]) => discriminates(property));
  if (discriminant) return h('span', { class: 'variant-label' }, h('code', {}, discriminant[0]), ': ', typeSummary(discriminant[1]));
  const missing = siblings.flatMap((sibling) => Object.entries(propertiesOf(sibling))).find(([name, property]) => discriminates(property) && !(name in propertiesOf(variant)));
  if (missing) return h('span', { class: 'variant-label' }, h('code', {}, missing[0]), ': absent');
  return typeLink(variant);
}

/**
 * A schema as a reader wants it: an object as a table of its fields (required ones marked,
 * nested objects unfoldable), a union as its variants, anything else as its type and
 * constraints. `$ref`s are links to the schema's own section.
 *
 * @example
 * reference.append(renderSchema(document.components.schemas.ChatCompletion));
 */
export function renderSchema(schema: Schema, depth = 0): HTMLElement {
  const parts: Child[] = [description(schema.description)];
  if (typeof schema.$ref === 'string') return h('div', { class: 'schema' }, parts, h('p', {}, 'See ', typeLink(schema), '.'));
  const variants = variantsOf(schema);
  const hasProperties = typeof schema.properties === 'object' && schema.properties !== null;
  // Beside fields, a union is shown when a field tells its variants apart (an event's name);
  // otherwise it is a rule the description states (an assistant message's content or tool calls).
  const isUnion = variants?.some((variant) => variant.type !== 'null') === true && (!hasProperties || variants.every((variant) => Object.values(propertiesOf(variant)).some(discriminates)));
  if (hasProperties) {
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const rows = Object.entries(schema.properties as Record<string, Schema>).map(([name, property]) => propertyRow(name, property, required.has(name), depth));
    parts.push(h('table', { class: 'properties' }, h('thead', {}, h('tr', {}, h('th', {}, 'Field'), h('th', {}, 'Type'), h('th', {}, 'Description'))), h('tbody', {}, rows)));
  } else if (!isUnion) {
    const constraints = constraintsOf(schema);
    parts.push(h('p', {}, typeLink(schema), constraints.length > 0 && ` (${constraints.join(', ')})`));
  }
  // A union, also one that narrows the fields above (an event: which `event` carries which `data`).
  if (isUnion) {
    parts.push(
      h('p', { class: 'union' }, schema.oneOf ? 'Exactly one of:' : 'Any of:'),
      h('ol', { class: 'variants' }, variants!.map((variant) => h('li', {}, variantLabel(variant, variants!), hasFields(variant) && typeof variant.$ref !== 'string' ? renderSchema(variant, depth + 1) : description(variant.description)))),
    );
  }
  return h('div', { class: 'schema' }, parts);
}
