// One fetch handler serving every conformance case (`createCaseRouter`), started by whichever
// runtime loads this bundle: Bun and Deno listen on 127.0.0.1 and a free port and print it;
// workerd takes the default export (its config binds the socket). Bundled with the cases by
// `bundleCaseServer`; imports nothing from `node:`.
import { createCaseRouter, type PortableCase } from '@quantum-chat/conformance/portable';

declare const QC_CASES: PortableCase[];
declare const Bun: { serve(options: { hostname: string; port: number; fetch: (request: Request) => Promise<Response> }): { port: number } } | undefined;
declare const Deno:
  | { serve(options: { hostname: string; port: number; onListen(address: { port: number }): void }, handler: (request: Request) => Promise<Response>): unknown }
  | undefined;

const route = createCaseRouter(QC_CASES);

/** The line the launcher waits for. */
function announce(port: number): void {
  console.log(JSON.stringify({ listening: port }));
}

if (typeof Bun !== 'undefined') {
  announce(Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: route }).port);
} else if (typeof Deno !== 'undefined') {
  Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => announce(port) }, route);
}

export default { fetch: route };
