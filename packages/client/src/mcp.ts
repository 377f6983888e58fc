// @quantum-chat/client/mcp: the tools of an MCP server as runner tools. Needs the optional
// peer dependency `@modelcontextprotocol/sdk`; kept out of the main entry for that reason.

/** Connecting to an MCP server and listing its tools. */
export { connectMcpTools } from './mcp/connect-mcp-tools.js';
export type { ConnectMcpToolsOptions, McpHttpServer, McpStdioServer, McpTools } from './mcp/connect-mcp-tools.js';
