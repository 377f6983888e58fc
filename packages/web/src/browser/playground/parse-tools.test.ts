import { describe, expect, it } from 'vitest';
import { exampleTools, parseToolDefinitions } from './parse-tools.js';

describe('parseToolDefinitions', () => {
  it('should read nothing as no tools', () => {
    expect(parseToolDefinitions('  \n')).toEqual({ ok: true, tools: undefined });
    expect(parseToolDefinitions('[]')).toEqual({ ok: true, tools: undefined });
  });

  it('should accept an array, one object, and the name-only shorthand', () => {
    const tool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };
    expect(parseToolDefinitions(JSON.stringify([tool]))).toEqual({ ok: true, tools: [tool] });
    expect(parseToolDefinitions(JSON.stringify(tool))).toEqual({ ok: true, tools: [tool] });
    expect(parseToolDefinitions('{"name":"search"}')).toEqual({ ok: true, tools: [{ type: 'function', function: { name: 'search' } }] });
  });

  it('should explain what is wrong instead of sending it', () => {
    expect(parseToolDefinitions('[{"name":')).toMatchObject({ ok: false, message: expect.stringMatching(/^The tool definitions are not valid JSON: /u) });
    expect(parseToolDefinitions('[{"name":"a"}, 3]')).toEqual({ ok: false, message: 'Tool 2 is not an object.' });
    expect(parseToolDefinitions('[{"description":"no name"}]')).toEqual({ ok: false, message: 'Tool 1 has no function name.' });
  });

  it('should offer an example that parses', () => {
    expect(parseToolDefinitions(exampleTools)).toMatchObject({ ok: true, tools: [{ function: { name: 'get_weather' } }] });
  });
});
