import type { ChatRequestObserver, ChatRequestRecord, StreamEvent } from '@quantum-chat/core';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Bucket bounds in seconds, as the OpenTelemetry GenAI conventions advise for each histogram
 * (so dashboards built for other GenAI servers read ours the same way).
 */
const durationBuckets = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const firstTokenBuckets = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const perTokenBuckets = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5];

/** The label of a request that never named a known model (refused first, or an unknown id). */
const unknownModel = 'unknown';

/** The server's Prometheus metrics (decisions §9) and the observer that feeds them. */
export interface ServerMetrics {
  registry: Registry;
  /** Hand to `createChatHandler({ observeRequest })`: one observer per chat request. */
  observeRequest(): ChatRequestObserver;
  /** Hand to `createChatHandler({ streams: { onStreamEvent } })`: resumable streams, resumes and cancels. */
  onStreamEvent(event: StreamEvent): void;
  /** The text for `GET /metrics`. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

/**
 * Prometheus metrics fed by the chat handler's own reports: one `onSettled` per chat request
 * (refused ones too) and `onStreamStart` for the active-streams gauge. Labels are the model id
 * (only ids of the registry: a refused request's own text never becomes a label), the status
 * and whether it streamed; organisations and keys never are labels.
 *
 * @example
 * const metrics = createServerMetrics();
 * createChatHandler({ engine, accessControl, observeRequest: metrics.observeRequest });
 */
export function createServerMetrics(): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters (promtool refuses them); the per-type gauges without `_total` stay.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  const requestDuration = new Histogram({
    name: 'gen_ai_server_request_duration_seconds',
    help: 'Time from a chat request reaching the handler to its end (the last frame of a stream).',
    labelNames: ['gen_ai_request_model'],
    buckets: durationBuckets,
    registers: [registry],
  });
  const timeToFirstToken = new Histogram({
    name: 'gen_ai_server_time_to_first_token_seconds',
    help: 'Streams: time from a chat request reaching the handler to its first token frame being written.',
    labelNames: ['gen_ai_request_model'],
    buckets: firstTokenBuckets,
    registers: [registry],
  });
  const timePerOutputToken = new Histogram({
    name: 'gen_ai_server_time_per_output_token_seconds',
    help: 'Streams that finished: time per output token after the first one.',
    labelNames: ['gen_ai_request_model'],
    buckets: perTokenBuckets,
    registers: [registry],
  });
  const requests = new Counter({
    name: 'quantum_chat_requests_total',
    help: 'Chat completion requests, by model, HTTP status and whether they streamed.',
    labelNames: ['model', 'status', 'stream'],
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'quantum_chat_tokens_total',
    help: 'Tokens of chat completions: input (prompt), output (all generated, reasoning included) and reasoning (the part of output spent reasoning).',
    labelNames: ['model', 'type'],
    registers: [registry],
  });
  const streamEvents = new Counter({
    name: 'quantum_chat_resumable_stream_events_total',
    help: 'Resumable streams (decisions §4.7): started, resumed (each resume request that found its stream) and cancelled (each cancel of a running stream).',
    labelNames: ['event'],
    registers: [registry],
  });
  const activeStreams = new Gauge({
    name: 'quantum_chat_active_streams',
    help: 'Chat completion streams open now.',
    registers: [registry],
  });

  function record(settled: ChatRequestRecord): void {
    const model = settled.model === '' ? unknownModel : settled.model;
    const byModel = { gen_ai_request_model: model };
    requests.inc({ model, status: String(settled.status), stream: String(settled.stream) });
    requestDuration.observe(byModel, settled.durationMs / 1000);
    if (settled.promptTokens > 0) tokens.inc({ model, type: 'input' }, settled.promptTokens);
    if (settled.completionTokens > 0) tokens.inc({ model, type: 'output' }, settled.completionTokens);
    if (settled.reasoningTokens > 0) tokens.inc({ model, type: 'reasoning' }, settled.reasoningTokens);
    const firstTokenMs = settled.timeToFirstTokenMs;
    if (firstTokenMs === undefined) return;
    timeToFirstToken.observe(byModel, firstTokenMs / 1000);
    if (settled.status === 200 && !settled.interrupted && settled.completionTokens > 1) {
      timePerOutputToken.observe(byModel, (settled.durationMs - firstTokenMs) / 1000 / (settled.completionTokens - 1));
    }
  }

  return {
    registry,
    observeRequest() {
      let streaming = false;
      return {
        onStreamStart() {
          streaming = true;
          activeStreams.inc();
        },
        onSettled(settled) {
          if (streaming) activeStreams.dec();
          record(settled);
        },
      };
    },
    onStreamEvent(event) {
      streamEvents.inc({ event });
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
