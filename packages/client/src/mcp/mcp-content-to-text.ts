/** One item of an MCP tool result's `content`, read loosely (servers add kinds over time). */
export interface McpContentItem {
  type: string;
  text?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; mimeType?: string };
  [field: string]: unknown;
}

/**
 * The text of an MCP tool result for a `tool` message: text items as they are, embedded text
 * resources by their text, and a short placeholder for what a chat model cannot read here
 * (images, audio, blobs, links). With no content, the structured content as JSON.
 *
 * @internal
 */
export function mcpContentToText(content: readonly McpContentItem[] | undefined, structuredContent?: unknown): string {
  const parts: string[] = [];
  for (const item of content ?? []) {
    switch (item.type) {
      case 'text':
        parts.push(item.text ?? '');
        break;
      case 'resource':
        parts.push(typeof item.resource?.text === 'string' ? item.resource.text : `[resource ${item.resource?.uri ?? ''} (${item.resource?.mimeType ?? 'binary'})]`);
        break;
      case 'resource_link':
        parts.push(`[resource link ${item.uri ?? ''}${item.name ? ` "${item.name}"` : ''}]`);
        break;
      default:
        parts.push(`[${item.type}${item.mimeType ? ` ${item.mimeType}` : ''}]`);
    }
  }
  if (parts.length === 0 && structuredContent !== undefined) return JSON.stringify(structuredContent);
  return parts.join('\n');
}
