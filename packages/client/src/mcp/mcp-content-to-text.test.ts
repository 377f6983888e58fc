import { describe, expect, it } from 'vitest';
import { mcpContentToText } from './mcp-content-to-text.js';

describe('mcpContentToText', () => {
  it('should join text items and describe what a chat model cannot read', () => {
    const text = mcpContentToText([
      { type: 'text', text: 'Echo: hi' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } },
      { type: 'resource_link', uri: 'file:///b.txt', name: 'b' },
    ]);
    expect(text).toBe('Echo: hi\n[image image/png]\ninside\n[resource link file:///b.txt "b"]');
  });

  it('should fall back to the structured content as JSON', () => {
    expect(mcpContentToText([], { sum: 3 })).toBe('{"sum":3}');
  });
});
