// Argument checks shared by the store commands (keys, orgs, usage).

/** A refusal of the command's arguments: runCli prints it with the usage and exits 2. */
export class CommandUsageError extends Error {
  readonly code = 'ERR_PARSE_ARGS_QUANTUM_CHAT';
}

/** Parses a limit value: a whole number, `none` (no limit) or `default` (the plan's). */
export function parseLimit(option: string, value: string | undefined): number | null | undefined {
  if (value === undefined || value === 'default') return undefined;
  if (value === 'none') return null;
  if (!/^\d+$/.test(value)) throw new CommandUsageError(`--${option} must be a whole number, 'none' or 'default', got '${value}'.`);
  return Number(value);
}

/** Checks a value against its allowed ones. */
export function oneOf<T extends string>(option: string, value: string | undefined, allowed: readonly T[], fallback?: T): T {
  if (value === undefined && fallback !== undefined) return fallback;
  if (value === undefined || !(allowed as readonly string[]).includes(value)) {
    throw new CommandUsageError(`--${option} must be one of ${allowed.join(', ')}${value === undefined ? '' : `, got '${value}'`}.`);
  }
  return value as T;
}
