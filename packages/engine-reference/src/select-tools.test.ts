import { describe, expect, it } from 'vitest';
import { calculatorTool, calendarTool, createRequest, searchTool, weatherTool } from '../test/request-fixtures.js';
import { scoreTool, selectTools } from './select-tools.js';

const tools = [weatherTool, searchTool, calendarTool];
const names = (selected: ReturnType<typeof selectTools>) => selected.map((tool) => tool.function.name);

describe('scoreTool', () => {
  it('should match a significant word of the name, with plural forms', () => {
    expect(scoreTool(weatherTool, 'Any weather news?')).toBeGreaterThan(0);
    expect(scoreTool(searchTool, 'Run two searches')).toBeGreaterThan(0);
  });

  it('should match the name with hyphens and underscores read as spaces', () => {
    expect(scoreTool(calendarTool, 'Please create calendar event for Friday')).toBeGreaterThanOrEqual(10);
  });

  it('should match on two significant description words', () => {
    expect(scoreTool(calculatorTool, 'Evaluate this arithmetic for me')).toBeGreaterThan(0);
    expect(scoreTool(calculatorTool, 'Evaluate my essay')).toBe(0);
  });

  it('should not match on generic words like get or current', () => {
    expect(scoreTool(weatherTool, 'Get me the current time')).toBe(0);
  });
});

describe('selectTools', () => {
  it('should never call a tool for tool choice none', () => {
    expect(selectTools(createRequest({ tools, toolChoice: 'none' }), 'weather in Paris', false)).toEqual([]);
  });

  it('should call only matching tools for auto', () => {
    expect(names(selectTools(createRequest({ tools, toolChoice: 'auto' }), 'What is the weather in Paris?', false))).toEqual(['get_weather']);
    expect(selectTools(createRequest({ tools, toolChoice: 'auto' }), 'Write me a poem', false)).toEqual([]);
  });

  it('should call the best match, else the first tool, for required', () => {
    expect(names(selectTools(createRequest({ tools, toolChoice: 'required' }), 'search for cats', false))).toEqual(['search_web']);
    expect(names(selectTools(createRequest({ tools, toolChoice: 'required' }), 'Write me a poem', false))).toEqual(['get_weather']);
  });

  it('should call the named tool whatever the message says', () => {
    const request = createRequest({ tools, toolChoice: { type: 'function', function: { name: 'search_web' } } });
    expect(names(selectTools(request, 'What is the weather in Paris?', false))).toEqual(['search_web']);
  });

  it('should call several matching tools only when parallel calls are allowed', () => {
    const text = 'Search the web for ski resorts and tell me the weather in Zermatt';
    expect(names(selectTools(createRequest({ tools, parallelToolCalls: true }), text, false))).toEqual(['search_web', 'get_weather']);
    expect(selectTools(createRequest({ tools, parallelToolCalls: false }), text, false)).toHaveLength(1);
  });

  it('should call nothing once the conversation ends in a tool result', () => {
    expect(selectTools(createRequest({ tools, toolChoice: 'required' }), 'weather in Paris', true)).toEqual([]);
  });
});
