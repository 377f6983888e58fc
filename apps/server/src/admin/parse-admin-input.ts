import { QuantumChatError } from '@quantum-chat/core';
import { formatParamPath, zodIssueToError } from '@quantum-chat/core/host';
import type * as z from 'zod';

/** Where a value came from, for the wording of a refusal. */
export type InputLocation = 'body' | 'query';

/** `organization` for `organisation`, and the like: the spelling a caller most likely meant. */
function nearest(name: string, known: readonly string[]): string | undefined {
  const plain = (text: string) => text.toLowerCase().replace(/z/gu, 's').replace(/[-_]/gu, '');
  return known.find((candidate) => plain(candidate) === plain(name));
}

function issueToError(issue: z.core.$ZodIssue, location: InputLocation, schema: z.ZodType): QuantumChatError {
  if (issue.path.length === 0 && issue.code === 'invalid_type') {
    const what = location === 'body' ? 'The request body' : 'The query';
    return new QuantumChatError('invalid_type', `${what} must be a JSON object.`);
  }
  if (issue.code === 'unrecognized_keys') {
    const name = issue.keys[0]!;
    const param = formatParamPath([...issue.path, name]);
    const shape = issue.path.length === 0 ? Object.keys((schema as unknown as { shape?: Record<string, unknown> }).shape ?? {}) : [];
    const guess = nearest(name, shape);
    const kind = location === 'body' ? 'parameter' : 'query parameter';
    return new QuantumChatError('invalid_value', `Unrecognized ${kind} '${param}'.${guess === undefined ? '' : ` Did you mean '${guess}'?`}`, { param });
  }
  return zodIssueToError(issue);
}

/**
 * Validates admin input (a JSON body or a query) with its schema, or throws the core's 400 for
 * the first problem, naming the field the JavaScript way (`limits.tokens_per_day`,
 * `allowed_models[1]`). Unknown fields are refused: a misspelt admin field must not be
 * silently dropped.
 *
 * @example
 * const body = parseAdminInput(createKeyRequestSchema, request.body, 'body');
 */
export function parseAdminInput<T extends z.ZodType>(schema: T, value: unknown, location: InputLocation): z.output<T> {
  const result = schema.safeParse(value === undefined && location === 'body' ? undefined : value, { reportInput: true });
  if (result.success) return result.data;
  // A misspelt field also makes the real one look missing: name the misspelling first.
  const issues = result.error.issues;
  throw issueToError(issues.find((issue) => issue.code === 'unrecognized_keys') ?? issues[0]!, location, schema);
}
