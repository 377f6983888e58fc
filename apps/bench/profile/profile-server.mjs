// One server variant under load with --cpu-prof (written to $PROFILE_DIR, /tmp/prof by default).
// node apps/bench/profile/profile-server.mjs <variant> <back-to-back|paced> <json|stream> <seconds>
import { fileURLToPath } from 'node:url';
import { startChild } from '../src/lib/child.mjs';
import { startLoad } from '../src/lib/servers.mjs';
import { jsonRequestBody, requestHeaders, streamRequestBody } from '../src/lib/fixtures.mjs';
const [variant, mode = 'back-to-back', kind = 'json', seconds = '10'] = process.argv.slice(2);
const server = await startChild(fileURLToPath(new URL('../src/servers/http-server.mjs', import.meta.url)), { role: 'server', args: [variant, mode], nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR ?? '/tmp/prof'}`, `--cpu-prof-name=${variant}-${mode}-${kind}.cpuprofile`] });
const load = await startLoad();
const url = `http://127.0.0.1:${server.ready.port}/v1/chat/completions`;
if (kind === 'json') console.log(await load.call('autocannon', { url, body: jsonRequestBody, headers: requestHeaders, connections: 50, seconds: Number(seconds) }));
else console.log(await load.call('streams', { target: { host: '127.0.0.1', port: server.ready.port, path: '/v1/chat/completions', headers: requestHeaders }, body: streamRequestBody, concurrency: 50, seconds: Number(seconds) }));
await load.stop();
await server.stop();
