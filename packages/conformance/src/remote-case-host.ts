import type { PortableCase } from './case-router.js';
import type { ConformanceCase } from './load-cases.js';
import type { ConformanceHost } from './run-server-conformance.js';

/** The part of a case a case router (in another runtime) needs. */
export function toPortableCase(testCase: ConformanceCase): PortableCase {
  return { id: testCase.id, handler: testCase.handler, engineEvents: testCase.engineEvents, streaming: testCase.response.kind === 'sse' };
}

/**
 * The host of one case inside a running case router (`createCaseRouter`) at `origin`: its
 * base URL, and its replay engine reached over HTTP.
 *
 * @example
 * runServerConformance('bun', async (_options, testCase) => remoteCaseHost(bun.origin, testCase));
 */
export function remoteCaseHost(origin: string, testCase: ConformanceCase): ConformanceHost {
  const caseUrl = `${origin}/cases/${testCase.id}`;
  return {
    baseUrl: `${caseUrl}/v1`,
    close: async () => {},
    remoteEngine: {
      markFirstFrame() {
        void fetch(`${caseUrl}/first-frame`, { method: 'POST' }).then((response) => response.body?.cancel(), () => undefined);
      },
      async state() {
        const response = await fetch(`${caseUrl}/engine`);
        return (await response.json()) as { calls: number; firstFrameBeforeLastEvent: boolean | undefined };
      },
    },
  };
}
