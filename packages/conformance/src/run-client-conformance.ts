import { describe, expect, it } from 'vitest';
import type { Collect } from './collected-completion.js';
import { expectCollected, type StreamReaderTraits } from './compare-collected.js';
import { conformanceKeys } from './conformance-keys.js';
import { cutStream, type Cutting } from './cut-bytes.js';
import { loadClientFixtures, type ClientFixture } from './load-cases.js';
import { startFixtureServer } from './serve-sse-fixture.js';

export interface ClientConformanceOptions {
  /**
   * Expected to fail, run as `it.fails`: a fixture id (`dialects/crlf-line-ends`: all its
   * cuttings) or a fixture id and a cutting (`chat/text-stream bytewise`).
   */
  knownFailures?: string[];
  /** The streams to replay; all shipped `.response.sse` fixtures by default. */
  fixtures?: ClientFixture[];
  /** Seeded random cuttings per fixture, besides whole, bytewise and awkward; 3 by default. */
  randomCuttings?: number;
  /** How the reader under test restates a stream by design (the upstream engine: think tags, our finish reasons, own ids and errors). */
  traits?: StreamReaderTraits;
}

async function runCutting(fixture: ClientFixture, cutting: Cutting, collect: Collect, traits: StreamReaderTraits): Promise<void> {
  const server = await startFixtureServer(cutting.pieces);
  try {
    const apiKey = conformanceKeys.eliteLive;
    const collected = await collect({ baseUrl: server.baseUrl, apiKey, request: fixture.request });
    expect(server.requests.length, 'requests the client sent').toBe(1);
    const [sent] = server.requests;
    expect(sent!.method, 'method').toBe('POST');
    expect(sent!.url.split('?')[0], 'path').toBe(fixture.api === 'responses' ? '/v1/responses' : '/v1/chat/completions');
    expect(sent!.headers.authorization, 'authorization header').toBe(`Bearer ${apiKey}`);
    expect(JSON.parse(sent!.body), 'request body').toMatchObject({ model: fixture.request.model, stream: true });
    expectCollected(collected, fixture.expected, traits);
  } finally {
    await server.close();
  }
}

/**
 * Registers vitest tests that replay every stream fixture (ours and `dialects/`: what other
 * servers send) to a reader of streams (our client, or the upstream engine reading another
 * server), from a 127.0.0.1 server, cut at byte boundaries (whole, one byte at a time, inside
 * every multibyte character, and seeded random cuts). The reader's `collect` must rebuild each
 * fixture's `.expected.json`, as restated by its `traits`. Test names are
 * `<fixture id> <cutting> [<name>]`.
 *
 * @example
 * runClientConformance('client', async ({ baseUrl, apiKey, request }) => {
 *   const client = createChatClient({ baseUrl, apiKey });
 *   return collectStream(await client.chat.completions.stream(request));
 * });
 */
export function runClientConformance(name: string, collect: Collect, options: ClientConformanceOptions = {}): void {
  const fixtures = options.fixtures ?? loadClientFixtures();
  const knownFailures = new Set(options.knownFailures ?? []);
  const unknown = [...knownFailures].filter((entry) => !fixtures.some((fixture) => fixture.id === entry.split(' ', 1)[0]));
  if (unknown.length > 0) throw new Error(`runClientConformance: unknown fixture ids in knownFailures: ${unknown.join(', ')}`);
  describe(`client conformance [${name}]`, () => {
    for (const fixture of fixtures) {
      for (const cutting of cutStream(fixture.id, fixture.bytes, options.randomCuttings)) {
        const register = knownFailures.has(fixture.id) || knownFailures.has(`${fixture.id} ${cutting.label}`) ? it.fails : it;
        register(`${fixture.id} ${cutting.label} [${name}]`, () => runCutting(fixture, cutting, collect, options.traits ?? {}));
      }
    }
  });
}
