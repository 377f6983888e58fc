// @quantum-chat/core/json-schema: the one JSON Schema validator of the toolkit (no code
// generation, linear-time regexes), shared by the handler, the reference engine and the client.
export { compileLinearPattern, maxPatternLength } from './json-schema/linear-pattern.js';
export type { CompiledPattern, LinearPattern } from './json-schema/linear-pattern.js';
export { createSchemaValidator } from './json-schema/schema-validator.js';
export type { SchemaProblem, SchemaValidator } from './json-schema/schema-validator.js';
export { getSchemaValidator, validateWithSchema } from './json-schema/cached-schema-validator.js';
export { measureFiniteValueDepths } from './json-schema/finite-value-depth.js';
export type { FiniteValueDepths } from './json-schema/finite-value-depth.js';
