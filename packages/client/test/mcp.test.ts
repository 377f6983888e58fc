import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { generateApiKey } from '@quantum-chat/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatClient, runTools, type ChatClient } from '../src/index.js';
import { connectMcpTools } from '../src/mcp.js';
import { startQuantumServer, type QuantumServer } from './start-quantum-server.js';

/** The `bin` of @modelcontextprotocol/server-everything, read from its package.json. */
function everythingServerBin(): string {
  const manifestPath = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0]!;
  return join(dirname(manifestPath), bin);
}

function isRunning(processId: number): boolean {
  try {
    process.kill(processId, 0);
    return true;
  } catch {
    return false;
  }
}

/** A port that was free a moment ago (the everything server takes its port from PORT only). */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

let server: QuantumServer;
let client: ChatClient;
beforeAll(async () => {
  server = await startQuantumServer();
  client = createChatClient({ baseUrl: server.baseUrl, apiKey: generateApiKey('live') });
});
afterAll(() => server.close());

describe('connectMcpTools with @modelcontextprotocol/server-everything over stdio', () => {
  it('should list its tools, run its echo tool through runTools, and leave no child process after close', async () => {
    const mcp = await connectMcpTools({ command: process.execPath, args: [everythingServerBin(), 'stdio'], stderr: 'ignore' });
    const processId = mcp.processId;
    try {
      expect(processId).toEqual(expect.any(Number));
      expect(isRunning(processId!)).toBe(true);
      const names = mcp.tools.map((tool) => tool.name);
      expect(names).toContain('echo');
      for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);

      const echo = mcp.tools.find((tool) => tool.name === 'echo')!;
      const result = await runTools({
        client,
        model: 'quantum-flash',
        messages: [{ role: 'user', content: 'Please echo this message back to me.' }],
        tools: [echo],
        toolChoice: { type: 'function', function: { name: 'echo' } },
      });
      const [toolResult] = result.steps[0]!.toolResults;
      expect(toolResult).toMatchObject({ name: 'echo', isError: false });
      const sentMessage = (JSON.parse(toolResult!.arguments) as { message: string }).message;
      expect(toolResult!.content).toBe(`Echo: ${sentMessage}`);
      expect(result.endedBy).toBe('answer');
      expect(result.messages.find((message) => message.role === 'tool')).toMatchObject({ content: `Echo: ${sentMessage}` });
    } finally {
      await mcp.close();
    }
    expect(isRunning(processId!)).toBe(false);
  });

  it('should return an MCP error result as an error result for the model', async () => {
    const mcp = await connectMcpTools({ command: process.execPath, args: [everythingServerBin(), 'stdio'], stderr: 'ignore' });
    try {
      const echo = mcp.tools.find((tool) => tool.name === 'echo')!;
      // Arguments the server's own validation refuses: its answer is an `isError` result (or a protocol error).
      await expect(echo.run({ message: 42 } as never, { toolCallId: 'call_x', signal: undefined, messages: [] })).rejects.toThrow();
    } finally {
      await mcp.close();
    }
    expect(isRunning(mcp.processId!)).toBe(false);
  });
});

describe('connectMcpTools with @modelcontextprotocol/server-everything over Streamable HTTP', () => {
  it('should list and call its tools by URL', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [everythingServerBin(), 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (data: Buffer) => data.toString().includes('listening') && resolve());
        child.once('exit', (code) => reject(new Error(`the MCP server exited with ${String(code)}`)));
      });
      const mcp = await connectMcpTools({ url: `http://127.0.0.1:${port}/mcp` }, { namePrefix: 'everything_' });
      try {
        expect(mcp.processId).toBeUndefined();
        const echo = mcp.tools.find((tool) => tool.name === 'everything_echo');
        expect(echo).toBeDefined();
        expect(await echo!.run({ message: 'over http' }, { toolCallId: 'call_1', signal: undefined, messages: [] })).toBe('Echo: over http');
      } finally {
        await mcp.close();
      }
    } finally {
      child.kill();
      if (child.exitCode === null) await once(child, 'exit');
    }
  });
});
