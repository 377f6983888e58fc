/** The API's ranges for the playground's number fields (decisions §2). */
export const numberFieldRules = {
  temperature: { label: 'Temperature', min: 0, max: 2, integer: false },
  maxTokens: { label: 'Max tokens', min: 1, max: 8192, integer: true },
} as const;

export type NumberFieldRule = (typeof numberFieldRules)[keyof typeof numberFieldRules];

/**
 * Checks what a number field holds: empty is fine (the server's default applies); anything
 * else must be a number in range (a whole one where the API wants an integer).
 *
 * @example
 * checkNumberField('3', numberFieldRules.temperature) // { ok: false, message: 'Temperature must be between 0 and 2.' }
 */
export function checkNumberField(text: string, rule: NumberFieldRule): { ok: true; value: number | undefined } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, value: undefined };
  const value = Number(text);
  const range = `between ${rule.min} and ${rule.max}`;
  if (!Number.isFinite(value) || value < rule.min || value > rule.max) return { ok: false, message: `${rule.label} must be ${range}.` };
  if (rule.integer && !Number.isInteger(value)) return { ok: false, message: `${rule.label} must be a whole number ${range}.` };
  return { ok: true, value };
}
