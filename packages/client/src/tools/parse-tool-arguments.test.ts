import { describe, expect, it } from 'vitest';
import { parseToolArguments } from './parse-tool-arguments.js';
import type { StandardSchemaLike } from './runner-tool.js';

const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

/** A minimal Standard Schema: what zod 4 looks like to the runner. */
const standard: StandardSchemaLike<{ city: string; unit: string }> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) =>
      typeof value === 'object' && value !== null && typeof (value as { city?: unknown }).city === 'string'
        ? { value: { city: (value as { city: string }).city, unit: 'celsius' } }
        : { issues: [{ message: 'Expected string', path: ['city'] }] },
  },
};

describe('parseToolArguments', () => {
  it('should parse and check JSON arguments against a JSON Schema', async () => {
    expect(await parseToolArguments(schema, '{"city":"Paris"}')).toEqual({ ok: true, value: { city: 'Paris' } });
    expect(await parseToolArguments(schema, '{"town":"Paris"}')).toEqual({ ok: false, error: 'The arguments do not match the tool\'s schema: (root): Instance does not have required property "city".' });
  });

  it('should refuse text that is not a JSON object', async () => {
    expect(await parseToolArguments(schema, '{"city":')).toMatchObject({ ok: false, error: expect.stringContaining('not valid JSON') });
    expect(await parseToolArguments(schema, '[1]')).toEqual({ ok: false, error: 'The arguments must be a JSON object.' });
  });

  it('should read an empty string as no arguments', async () => {
    expect(await parseToolArguments({ type: 'object' }, '')).toEqual({ ok: true, value: {} });
  });

  it('should validate with a Standard Schema and hand over its output', async () => {
    expect(await parseToolArguments(standard, '{"city":"Oslo"}')).toEqual({ ok: true, value: { city: 'Oslo', unit: 'celsius' } });
    expect(await parseToolArguments(standard, '{"city":1}')).toEqual({ ok: false, error: "The arguments do not match the tool's schema: city: Expected string." });
  });
});
