import type * as z from 'zod';
import { QuantumChatError } from '../errors/quantum-chat-error.js';

/** A path written the JavaScript way: `messages[0].role`, `tools[1].function.parameters`. */
export function formatParamPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'an integer';
  return { string: 'a string', number: 'a number', boolean: 'a boolean', object: 'an object' }[typeof value as string] ?? typeof value;
}

/** Turns the first zod issue into our 400, naming the field in `param`. */
export function zodIssueToError(issue: z.core.$ZodIssue, basePath: readonly PropertyKey[] = []): QuantumChatError {
  const param = formatParamPath([...basePath, ...issue.path]);
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return new QuantumChatError('missing_required_parameter', `Missing required parameter: '${param}'.`, { param });
      return new QuantumChatError(
        'invalid_type',
        `Invalid type for '${param}': expected ${issue.expected}, but got ${describeValue(input)}.`,
        { param },
      );
    case 'invalid_union': {
      if (input === undefined) return new QuantumChatError('missing_required_parameter', `Missing required parameter: '${param}'.`, { param });
      // A union of literals (tool_choice strings) or of shapes (content): say what fits.
      const allTypeIssues = issue.errors.every((branch) => branch.some((inner) => inner.code === 'invalid_type' && inner.path.length === 0));
      return new QuantumChatError(
        allTypeIssues ? 'invalid_type' : 'invalid_value',
        `Invalid value for '${param}': ${describeValue(input)} does not match any allowed form.`,
        { param },
      );
    }
    case 'invalid_key':
      // The key's own check says what is wrong ("keys must be token ids"), not "Invalid key in record".
      return new QuantumChatError('invalid_value', `Invalid value for '${param}': ${issue.issues[0]?.message ?? issue.message}.`, { param });
    case 'too_big':
    case 'too_small':
    case 'invalid_value':
    case 'invalid_format':
    case 'not_multiple_of':
    case 'invalid_element':
    case 'unrecognized_keys':
    case 'custom':
    default:
      return new QuantumChatError('invalid_value', `Invalid value for '${param}': ${issue.message}.`, { param });
  }
}
