// The load generator: one process pinned to the other core, driven over IPC by the
// orchestrator. Each request type runs one measured load and replies with its counts.
import http from 'node:http';
import net from 'node:net';
import autocannon from 'autocannon';
import { serveParent } from '../lib/child.mjs';
import { percentile } from '../lib/stats.mjs';

const LFLF = Buffer.from('\n\n');

/** Counts SSE frames (blank-line ends) across buffer boundaries. */
function createFrameCounter() {
  let count = 0;
  let lastByteWasLf = false;
  return {
    push(buffer) {
      if (lastByteWasLf && buffer[0] === 10) count++;
      for (let index = buffer.indexOf(LFLF); index !== -1; index = buffer.indexOf(LFLF, index + 2)) count++;
      lastByteWasLf = buffer[buffer.length - 1] === 10;
    },
    get count() {
      return count;
    },
  };
}

/** The `error.code` of an error envelope, or undefined. */
function errorCode(text) {
  try {
    return JSON.parse(text)?.error?.code ?? undefined;
  } catch {
    return undefined;
  }
}

/** POSTs `body` and resolves when the response ended, with its status, frames and timings. */
function post(agent, target, body, onFirstBody) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const request = http.request(
      { agent, host: target.host, port: target.port, path: target.path, method: 'POST', headers: { ...target.headers, 'content-length': Buffer.byteLength(body) } },
      (response) => {
        const counter = createFrameCounter();
        let firstBodyAt;
        // A failed answer's body, kept to name its error code.
        const failed = response.statusCode === 200 ? undefined : [];
        response.on('data', (buffer) => {
          if (firstBodyAt === undefined) {
            firstBodyAt = process.hrtime.bigint();
            onFirstBody?.();
          }
          counter.push(buffer);
          failed?.push(buffer);
        });
        response.on('end', () => {
          const ended = process.hrtime.bigint();
          resolve({
            status: response.statusCode,
            ...(failed ? { code: errorCode(Buffer.concat(failed).toString()) } : {}),
            frames: counter.count,
            firstBodyMs: firstBodyAt === undefined ? Number.NaN : Number(firstBodyAt - started) / 1e6,
            totalMs: Number(ended - started) / 1e6,
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

function runAutocannon(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

const idleSockets = [];
let idleFinished = 0;

serveParent({
  /**
   * Closed-loop JSON load with autocannon (50 connections by default). `loadCpuSeconds`: this
   * process's own CPU time during the run, to show whether the load generator was the limit.
   */
  async autocannon({ url, body, headers, connections = 50, pipelining = 1, seconds }) {
    const cpuBefore = process.cpuUsage();
    const result = await runAutocannon({ url, method: 'POST', body, headers, connections, duration: seconds, pipelining });
    const cpu = process.cpuUsage(cpuBefore);
    return {
      loadCpuSeconds: (cpu.user + cpu.system) / 1e6,
      requests: result.requests.total,
      seconds: result.duration,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      latencyP50: result.latency.p50,
    };
  },

  /** `concurrency` streams back to back per connection for `seconds`; counts streams and frames. */
  async streams({ target, body, concurrency = 50, seconds }) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
    const deadline = Date.now() + seconds * 1000;
    let streams = 0;
    let frames = 0;
    let failures = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < deadline) {
          const result = await post(agent, target, body);
          if (result.status !== 200) failures++;
          streams++;
          frames += result.frames;
        }
      }),
    );
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    agent.destroy();
    return { streams, frames, failures, seconds: elapsed };
  },

  /** One connection, one stream at a time: the time from sending to the first body bytes. */
  async firstChunk({ target, body, seconds }) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const deadline = Date.now() + seconds * 1000;
    const samples = [];
    let failures = 0;
    while (Date.now() < deadline) {
      const result = await post(agent, target, body);
      if (result.status !== 200) failures++;
      samples.push(result.firstBodyMs);
    }
    agent.destroy();
    return { count: samples.length, failures, p50: percentile(samples, 50), p90: percentile(samples, 90), p99: percentile(samples, 99), p999: percentile(samples, 99.9), max: percentile(samples, 100) };
  },

  /**
   * Open-loop load at `rate` requests per second for `seconds`: each request's time to its
   * first body bytes and to its end. Open loop, so a slow server cannot slow the arrivals.
   */
  async fixedRate({ target, body, rate, seconds }) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 2048 });
    const total = Math.round(rate * seconds);
    const results = [];
    const started = Date.now();
    const inFlight = [];
    for (let index = 0; index < total; index++) {
      const due = started + (index * 1000) / rate;
      const wait = due - Date.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      inFlight.push(post(agent, target, body).then((result) => results.push(result), () => results.push({ status: 0 })));
    }
    await Promise.all(inFlight);
    agent.destroy();
    const ok = results.filter((result) => result.status === 200);
    // Which statuses failed (0: no answer), so that a suite's error can say.
    const failedStatuses = {};
    for (const { status, code } of results) {
      if (status === 200) continue;
      const key = code === undefined ? String(status) : `${status} ${code}`;
      failedStatuses[key] = (failedStatuses[key] ?? 0) + 1;
    }
    return {
      requests: results.length,
      failures: results.length - ok.length,
      failedStatuses,
      frames: ok.reduce((sum, result) => sum + result.frames, 0),
      firstP50: percentile(ok.map((result) => result.firstBodyMs), 50),
      firstP99: percentile(ok.map((result) => result.firstBodyMs), 99),
      totalP50: percentile(ok.map((result) => result.totalMs), 50),
      totalP99: percentile(ok.map((result) => result.totalMs), 99),
      seconds: (Date.now() - started) / 1000,
    };
  },

  /**
   * Opens `count` connections that each send one streaming request and then wait: the server
   * holds them as idle streams. Connects at most `parallel` at a time (the accept backlog).
   */
  async idleOpen({ port, request, count, parallel = 256, localAddress, awaitHeaders = false }) {
    let next = 0;
    let failures = 0;
    const errors = {};
    async function opener() {
      while (next < count) {
        next++;
        await new Promise((resolve) => {
          // A source address of its own per measurement (127.0.0.0/8 is all loopback), so
          // sockets of earlier measurements in TIME_WAIT never use up the ephemeral ports.
          // `awaitHeaders`: the next connection waits for this one's first answer bytes, so that
          // opening goes at the pace the server answers, not past its accept backlog.
          const socket = net.connect({ host: '127.0.0.1', port, ...(localAddress ? { localAddress } : {}) }, () => {
            socket.write(request);
            idleSockets.push(socket);
            if (!awaitHeaders) resolve();
          });
          if (awaitHeaders) socket.once('data', resolve);
          socket.on('error', (error) => {
            failures++;
            errors[error.code] = (errors[error.code] ?? 0) + 1;
            resolve();
          });
          // A stream that got to its end (the `[DONE]` frame), for suites that release held streams.
          socket.on('data', (buffer) => {
            if (!socket.finishedStream && buffer.includes('[DONE]')) {
              socket.finishedStream = true;
              idleFinished++;
            }
          });
        });
      }
    }
    await Promise.all(Array.from({ length: parallel }, opener));
    return { open: idleSockets.length, failures, errors };
  },

  /** How many of the open idle sockets' streams have ended with `[DONE]`. */
  idleFinished() {
    return { open: idleSockets.length, finished: idleFinished };
  },

  async idleClose() {
    for (const socket of idleSockets) socket.destroy();
    const closed = idleSockets.length;
    idleSockets.length = 0;
    idleFinished = 0;
    return { closed };
  },
});
