import { isStandardSchema, type ToolParameters } from './runner-tool.js';
import { validateJsonSchema } from './validate-json-schema.js';

/** The outcome of reading a call's arguments: the value to run with, or why not. @internal */
export type ParsedToolArguments = { ok: true; value: unknown } | { ok: false; error: string };

/** At most this many problems are told to the model; the first few are what it needs to fix. */
const maxReportedProblems = 5;

/**
 * Parses a call's `arguments` string and checks it against the tool's schema: with the
 * schema library itself for a zod (Standard Schema) object, whose output (defaults,
 * transforms) is then what the tool gets; with the built-in JSON Schema checker otherwise.
 * An empty string counts as `{}`, which some models send for tools without parameters.
 *
 * @internal
 */
export async function parseToolArguments(parameters: ToolParameters, text: string): Promise<ParsedToolArguments> {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `The arguments are not valid JSON (${(error as Error).message}). Send a JSON object.` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'The arguments must be a JSON object.' };
  }
  if (isStandardSchema(parameters)) {
    const result = await parameters['~standard'].validate(value);
    if (result.issues === undefined) return { ok: true, value: result.value };
    return { ok: false, error: describeProblems(result.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`)) };
  }
  const problems = await validateJsonSchema(parameters, value);
  return problems.length === 0 ? { ok: true, value } : { ok: false, error: describeProblems(problems) };
}

function describeProblems(problems: string[]): string {
  const shown = problems.slice(0, maxReportedProblems).join('; ');
  const more = problems.length > maxReportedProblems ? ` (and ${problems.length - maxReportedProblems} more)` : '';
  return `The arguments do not match the tool's schema: ${shown}${more}.`;
}

function formatPath(path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined): string {
  if (path === undefined || path.length === 0) return '(root)';
  let out = '';
  for (const segment of path) {
    const key = typeof segment === 'object' ? segment.key : segment;
    out += typeof key === 'number' ? `[${key}]` : out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
