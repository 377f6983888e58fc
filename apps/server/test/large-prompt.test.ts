import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { eventLoopProbeEnv, readEventLoopProbe } from './event-loop-probe.js';
import { lastLine, runBuiltCli } from './run-cli.js';
import { startServerProcess } from './server-process.js';

/** Made-up words of about `length` characters, different for each `start`: nothing a tokenizer cache has seen. */
function prose(length: number, start: number): string {
  const syllables = ['qua', 'ntu', 'lat', 'tice', 'pho', 'ton', 'en', 'tan', 'gle', 'qu', 'bit', 'mea', 'sure', 'sta', 'te', 'ro', 'vi', 'mon'];
  let seed = start;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
  const words: string[] = [];
  let total = 0;
  for (let index = 0; total < length; index++) {
    let word = '';
    for (let count = 1 + (next() % 3); count > 0; count--) word += syllables[next() % syllables.length];
    word += index % 13 === 0 ? '. ' : ' ';
    words.push(word);
    total += word.length;
  }
  return words.join('');
}

/** CPU time (user + system) of a process so far, from /proc; undefined where there is none. */
function processCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, fields 14 and 15 of the file, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

describe('quantum-chat serve with 1 MB prompts (a real process)', () => {
  it("should never hold its event loop long for one (the server's CPU time), and refuse those over the request limit", async () => {
    const server = await startServerProcess({}, eventLoopProbeEnv());
    onTestFinished(() => server.dispose());
    const chat = (key: string, content: string) =>
      fetch(`${server.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'quantum-lite', max_tokens: 16, messages: [{ role: 'user', content }] }),
        signal: AbortSignal.timeout(30_000),
      });
    const key = server.firstStartKey!;

    // Warm-up: the code paths of a long prompt run for the first time (JIT); printed, not bounded.
    await readEventLoopProbe(server);
    const cold = await chat(key, prose(1_000_000, 1));
    expect(cold.status).toBe(200);
    await cold.text();
    const coldHeld = await readEventLoopProbe(server);

    const held: number[] = [];
    const elapsed: number[] = [];
    for (let round = 0; round < 3; round++) {
      const content = prose(1_000_000, 100 + round);
      await readEventLoopProbe(server);
      const response = await chat(key, content);
      expect(response.status).toBe(200);
      const { usage } = (await response.json()) as { usage: { prompt_tokens: number } };
      // The whole prompt was counted.
      expect(usage.prompt_tokens).toBeGreaterThan(200_000);
      const stretch = await readEventLoopProbe(server);
      held.push(stretch.cpuMs);
      elapsed.push(stretch.elapsedMs);
    }
    console.log(
      `1 MB prompt: the server's event loop held at most ${held.map((ms) => ms.toFixed(1)).join(', ')} ms of work (CPU; ${elapsed.map((ms) => ms.toFixed(1)).join(', ')} ms elapsed); ` +
        `the first one ${coldHeld.cpuMs.toFixed(1)} ms`,
    );
    // Counting a megabyte at once held it for about 170 ms: counted in turns, no stretch of the
    // request's work comes near 100 ms (the bound the freeze test keeps too).
    expect(Math.max(...held)).toBeLessThan(100);

    // A key allowed one request a minute: the 1 MB requests after it are refused before tokenising.
    const created = await runBuiltCli(['keys', 'create', '--org', 'default', '--kind', 'test', '--requests-per-minute', '1', '--data-dir', server.dataDir]);
    expect(created.code).toBe(0);
    const limited = lastLine(created.stdout);
    expect((await chat(limited, 'Hello there')).status).toBe(200);
    const body = prose(1_000_000, 7);
    await readEventLoopProbe(server);
    const before = processCpuMs(server.child.pid!);
    const refused = await Promise.all(Array.from({ length: 20 }, () => chat(limited, body)));
    const after = processCpuMs(server.child.pid!);
    expect(refused.map((response) => response.status)).toEqual(Array(20).fill(429));
    expect(((await refused[0]!.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    const refusing = await readEventLoopProbe(server);
    console.log(
      `20 requests of 1 MB over the request limit: ${before === undefined || after === undefined ? 'the server CPU is not readable here' : `${(after - before).toFixed(0)} ms of server CPU`}, ` +
        `longest event-loop stretch ${refusing.cpuMs.toFixed(1)} ms of work`,
    );
    expect(refusing.cpuMs).toBeLessThan(100);
  }, 120_000);
});
