import { describe, expect, it } from 'vitest';
import { checkNumberField, numberFieldRules } from './number-fields.js';

describe('checkNumberField', () => {
  it('should accept empty (the default applies) and values in range', () => {
    expect(checkNumberField('', numberFieldRules.temperature)).toEqual({ ok: true, value: undefined });
    expect(checkNumberField('0', numberFieldRules.temperature)).toEqual({ ok: true, value: 0 });
    expect(checkNumberField('2', numberFieldRules.temperature)).toEqual({ ok: true, value: 2 });
    expect(checkNumberField('0.75', numberFieldRules.temperature)).toEqual({ ok: true, value: 0.75 });
    expect(checkNumberField('8192', numberFieldRules.maxTokens)).toEqual({ ok: true, value: 8192 });
  });

  it('should refuse values out of range, not numbers, and fractions where a whole number is needed', () => {
    expect(checkNumberField('3', numberFieldRules.temperature)).toEqual({ ok: false, message: 'Temperature must be between 0 and 2.' });
    expect(checkNumberField('-0.1', numberFieldRules.temperature)).toEqual({ ok: false, message: 'Temperature must be between 0 and 2.' });
    expect(checkNumberField('abc', numberFieldRules.temperature).ok).toBe(false);
    expect(checkNumberField('0', numberFieldRules.maxTokens)).toEqual({ ok: false, message: 'Max tokens must be between 1 and 8192.' });
    expect(checkNumberField('10.5', numberFieldRules.maxTokens)).toEqual({ ok: false, message: 'Max tokens must be a whole number between 1 and 8192.' });
  });
});
