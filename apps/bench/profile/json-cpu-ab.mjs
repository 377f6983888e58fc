// Server CPU per JSON request of some server variants, side by side (a quick A/B while working; the
// bench is the measurement): node apps/bench/profile/json-cpu-ab.mjs fastify-bare fastify-adapter-stub fastify-adapter
import { startServer, startLoad, withServerCpu } from '../src/lib/servers.mjs';
import { requestHeaders, jsonRequestBody } from '../src/lib/fixtures.mjs';
const load = await startLoad();
const servers = {};
for (const v of process.argv.slice(2)) servers[v] = await startServer(v, 'back-to-back');
for (let round = 0; round < 4; round++) for (const [v, s] of Object.entries(servers)) {
  const { result, cpuSeconds } = await withServerCpu(s, () => load.call('autocannon', { url: `${s.url}/v1/chat/completions`, body: jsonRequestBody, headers: requestHeaders, connections: 50, seconds: round === 0 ? 2 : 3 }));
  if (round > 0) console.log(v.padEnd(22), String(result.requests).padStart(7), 'req', (cpuSeconds * 1e6 / result.requests).toFixed(1), 'µs CPU/req');
}
await load.stop(); for (const s of Object.values(servers)) await s.stop();
