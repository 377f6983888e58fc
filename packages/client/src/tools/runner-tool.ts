import type { Message } from '@quantum-chat/core';

/** A JSON Schema object describing a tool's arguments (`{ type: 'object', properties, required }`). */
export type JsonSchemaObject = Record<string, unknown>;

/** What a Standard Schema `validate` returns (zod 4, valibot, arktype…). */
type StandardValidationResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined }> };

/**
 * A schema library object the runner can use without depending on it: Standard Schema for
 * validation and Standard JSON Schema (zod ≥ 4.2) or a `toJSONSchema()` method for the
 * definition sent to the model. A zod 4 schema is one.
 */
export interface StandardSchemaLike<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): StandardValidationResult<Output> | Promise<StandardValidationResult<Output>>;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
    readonly jsonSchema?: { input(options: { target: string }): Record<string, unknown> } | undefined;
  };
}

/** A tool's arguments schema: plain JSON Schema, or a zod (Standard Schema) object. */
export type ToolParameters = JsonSchemaObject | StandardSchemaLike;

/** What a tool's `run` is given besides its arguments. */
export interface ToolRunContext {
  /** The id of the call being answered (`call_…`). */
  toolCallId: string;
  /** Aborts when the caller aborts `runTools`. */
  signal: AbortSignal | undefined;
  /** The conversation so far, ending with the assistant message that made the call. */
  messages: readonly Message[];
}

/**
 * A function the model may call. `run`'s result becomes the `tool` message: a string as is,
 * anything else as JSON. A thrown error goes back to the model as `{"error": "…"}`.
 */
export interface RunnerTool<Args = unknown> {
  /** Matches `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  description?: string | undefined;
  parameters: ToolParameters;
  run(args: Args, context: ToolRunContext): unknown;
}

/** The arguments type of a schema: the output of a Standard Schema, else a plain object. */
export type InferToolArgs<Parameters> = Parameters extends { readonly '~standard': { readonly types?: infer Types } }
  ? NonNullable<Types> extends { readonly output: infer Output }
    ? Output
    : unknown
  : Record<string, unknown>;

/**
 * Declares a tool with its arguments typed from its schema (a zod schema types `args`).
 *
 * @example
 * const weather = defineTool({
 *   name: 'get_weather',
 *   description: 'Current weather for a city',
 *   parameters: z.object({ city: z.string() }),
 *   run: async ({ city }) => ({ city, celsius: 21 }),
 * });
 */
export function defineTool<Parameters extends ToolParameters>(tool: {
  name: string;
  description?: string | undefined;
  parameters: Parameters;
  run(args: InferToolArgs<Parameters>, context: ToolRunContext): unknown;
}): RunnerTool<InferToolArgs<Parameters>> {
  return tool;
}

/** A Standard Schema object rather than plain JSON Schema. @internal */
export function isStandardSchema(parameters: ToolParameters): parameters is StandardSchemaLike {
  const standard = (parameters as { '~standard'?: unknown })['~standard'];
  return typeof standard === 'object' && standard !== null && typeof (standard as { validate?: unknown }).validate === 'function';
}
