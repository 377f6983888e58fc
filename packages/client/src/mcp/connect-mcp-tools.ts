import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RunnerTool } from '../tools/runner-tool.js';
import { mcpContentToText, type McpContentItem } from './mcp-content-to-text.js';
import { toFunctionName } from './to-function-name.js';

/** Start a local MCP server as a child process and speak to it over stdio. */
export interface McpStdioServer {
  command: string;
  args?: string[];
  /** Added to a safe default environment (PATH, HOME…), as the MCP SDK does. */
  env?: Record<string, string>;
  cwd?: string;
  /** The child's stderr: `'inherit'` (default), `'ignore'` or `'pipe'`. */
  stderr?: 'inherit' | 'ignore' | 'pipe';
}

/** Reach a remote MCP server over Streamable HTTP. */
export interface McpHttpServer {
  url: string | URL;
  headers?: Record<string, string>;
}

/** Options of {@link connectMcpTools} besides the server. */
export interface ConnectMcpToolsOptions {
  /** Put before every tool name (`github_`), to keep tools of several servers apart. */
  namePrefix?: string;
  /** The client name announced to the server. */
  clientName?: string;
}

/** The tools of a connected MCP server. */
export interface McpTools {
  /** Runner tools, named for the API; each calls the MCP tool of the same (original) name. */
  tools: RunnerTool<Record<string, unknown>>[];
  /** The child's process id (stdio only), so callers can check it is gone after `close()`. */
  processId: number | undefined;
  /** The SDK client, for resources, prompts and anything else. */
  client: Client;
  /** Closes the session; for stdio, ends the child (stdin closed, then SIGTERM, then SIGKILL) and waits for it to exit. */
  close(): Promise<void>;
}

/** How long `close()` waits, at most, for a stdio child to be gone. */
const exitWaitMs = 6_000;

/**
 * Connects to an MCP server (stdio or Streamable HTTP) through `@modelcontextprotocol/sdk` and
 * turns its tools into runner tools for `runTools`. Names are made function-name safe; a tool
 * result's content becomes the `tool` message text, and an `isError` result an error result.
 *
 * @example
 * const mcp = await connectMcpTools({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', 'stdio'] });
 * try { await runTools({ client, model: 'quantum-flash', messages, tools: mcp.tools }); }
 * finally { await mcp.close(); }
 */
export async function connectMcpTools(server: McpStdioServer | McpHttpServer, options: ConnectMcpToolsOptions = {}): Promise<McpTools> {
  const transport = await createTransport(server);
  const client = new Client({ name: options.clientName ?? '@quantum-chat/client', version: '0.1.0' });
  const processId = () => (transport as { pid?: number | null }).pid ?? undefined;
  try {
    await client.connect(transport);
    const tools = await listAllTools(client, options.namePrefix ?? '');
    const pid = processId();
    return { tools, processId: pid, client, close: () => closeClient(client, pid) };
  } catch (error) {
    await closeClient(client, processId()).catch(() => undefined);
    throw error;
  }
}

async function createTransport(server: McpStdioServer | McpHttpServer): Promise<Transport> {
  if ('url' in server) {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return new StreamableHTTPClientTransport(new URL(server.url), server.headers ? { requestInit: { headers: server.headers } } : undefined);
  }
  // Imported only here: the stdio transport needs Node's child_process.
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  return new StdioClientTransport({
    command: server.command,
    ...(server.args ? { args: server.args } : {}),
    ...(server.env ? { env: server.env } : {}),
    ...(server.cwd ? { cwd: server.cwd } : {}),
    stderr: server.stderr ?? 'inherit',
  });
}

async function listAllTools(client: Client, namePrefix: string): Promise<RunnerTool<Record<string, unknown>>[]> {
  const taken = new Set<string>();
  const tools: RunnerTool<Record<string, unknown>>[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    for (const mcpTool of page.tools) {
      const name = toFunctionName(mcpTool.name, taken, namePrefix);
      taken.add(name);
      tools.push({
        name,
        description: mcpTool.description ?? mcpTool.title,
        parameters: mcpTool.inputSchema,
        async run(args, context) {
          const result = await client.callTool({ name: mcpTool.name, arguments: args }, undefined, context.signal ? { signal: context.signal } : undefined);
          const text = mcpContentToText(result.content as McpContentItem[] | undefined, result.structuredContent);
          // The runner turns a thrown error into `{"error": …}` for the model.
          if (result.isError === true) throw new Error(text || `The MCP tool '${mcpTool.name}' failed.`);
          return text;
        },
      });
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

async function closeClient(client: Client, processId: number | undefined): Promise<void> {
  await client.close();
  if (processId !== undefined) await waitForExit(processId);
}

/** The SDK sends SIGKILL last without waiting for it: poll until the process is really gone. */
async function waitForExit(processId: number): Promise<void> {
  const nodeProcess = (globalThis as { process?: { kill(pid: number, signal: number): boolean } }).process;
  if (nodeProcess === undefined) return;
  const deadline = Date.now() + exitWaitMs;
  while (Date.now() < deadline) {
    try {
      nodeProcess.kill(processId, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
