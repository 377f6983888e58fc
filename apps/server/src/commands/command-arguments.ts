// Argument checks shared by the store commands (keys, orgs, usage, audit).

/** A refusal of the command's arguments: runCli prints it with the usage and exits 2. */
export class CommandUsageError extends Error {
  readonly code = 'ERR_PARSE_ARGS_QUANTUM_CHAT';
}

/** Parses a limit value: a whole number, `none` (no limit) or `default` (the plan's). */
function parseLimit(option: string, value: string | undefined): number | null | 'default' | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return 'default';
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

/** The limit options every command that sets limits takes, by their wire names. */
export const limitOptions = {
  'requests-per-minute': 'requests_per_minute',
  'tokens-per-minute': 'tokens_per_minute',
  'tokens-per-day': 'tokens_per_day',
} as const;

export const limitParseOptions = {
  'requests-per-minute': { type: 'string' },
  'tokens-per-minute': { type: 'string' },
  'tokens-per-day': { type: 'string' },
} as const;

/** The limit options given, as a wire `limits` object (undefined when none is given). */
export function limitsFromOptions(values: Record<string, unknown>, accept: readonly ('none' | 'default')[]): Record<string, number | null | 'default'> | undefined {
  const limits: Record<string, number | null | 'default'> = {};
  for (const [option, field] of Object.entries(limitOptions)) {
    const value = parseLimit(option, values[option] as string | undefined);
    if (value === undefined) continue;
    if ((value === null && !accept.includes('none')) || (value === 'default' && !accept.includes('default'))) {
      throw new CommandUsageError(`--${option} must be a whole number${accept.map((word) => `, '${word}'`).join('')} here, got '${String(values[option])}'.`);
    }
    limits[field] = value;
  }
  return Object.keys(limits).length > 0 ? limits : undefined;
}

/**
 * A time option as the admin API takes it: Unix seconds, an ISO 8601 time, or a bare date
 * (`2027-01-31`, midnight UTC).
 */
export function timeOption(value: string | undefined): string | number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/u.test(value)) return Number(value);
  if (/^\d{4}-\d{2}-\d{2}$/u.test(value)) return `${value}T00:00:00Z`;
  return value;
}

/** Model ids, comma-separated. */
export function modelsOption(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value.split(',').map((model) => model.trim()).filter((model) => model !== '');
}

/** The option names of the wire fields, for messages: `expires_at` → `expires-at`. */
export const wireOptionNames: Readonly<Record<string, string>> = {
  organisation: 'org',
  kind: 'kind',
  plan: 'plan',
  expires_at: 'expires-at',
  allowed_models: 'models',
  overlap_seconds: 'overlap',
  requests_per_minute: 'requests-per-minute',
  tokens_per_minute: 'tokens-per-minute',
  tokens_per_day: 'tokens-per-day',
  since: 'since',
  until: 'until',
  limit: 'limit',
};
