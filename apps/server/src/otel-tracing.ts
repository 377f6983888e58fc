// Loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set (see create-server.ts): without it, no
// OpenTelemetry module is ever imported.
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { ChatRequestObserver, ChatRequestRecord, ChatRequestStart } from '@quantum-chat/core';
import type { UpstreamRequestStart, UpstreamRequestWatcher } from '@quantum-chat/engine-upstream';

/** Node's header record as OpenTelemetry's propagator reads it. */
const headerGetter: TextMapGetter<ChatRequestStart['headers']> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};

/** What the ready server wires when traces are on. */
export interface ServerTracing {
  /** One server span per chat request: `chat <model>`, with `gen_ai.*` attributes. */
  observeRequest(start: ChatRequestStart): ChatRequestObserver;
  /** One client span per upstream request, a child of the chat span, its `traceparent` sent upstream. */
  onUpstreamRequest(start: UpstreamRequestStart): UpstreamRequestWatcher;
  /** Exports what is left and stops. */
  shutdown(): Promise<void>;
}

/** The OTLP/HTTP traces URL: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, else `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
export function tracesUrlOf(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (traces !== undefined && traces !== '') return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (base === undefined || base === '') return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

function settleChatSpan(span: Span, record: ChatRequestRecord): void {
  if (record.model !== '') {
    span.updateName(`chat ${record.model}`);
    span.setAttribute('gen_ai.request.model', record.model);
    span.setAttribute('gen_ai.response.model', record.model);
  }
  span.setAttributes({
    'http.response.status_code': record.status,
    'quantum_chat.request_id': record.requestId,
    'quantum_chat.stream': record.stream,
    'quantum_chat.interrupted': record.interrupted,
    'gen_ai.usage.input_tokens': record.promptTokens,
    'gen_ai.usage.output_tokens': record.completionTokens,
    'gen_ai.usage.reasoning_tokens': record.reasoningTokens,
  });
  if (record.finishReason !== undefined) span.setAttribute('gen_ai.response.finish_reasons', [record.finishReason]);
  if (record.timeToFirstTokenMs !== undefined) span.setAttribute('gen_ai.server.time_to_first_token', record.timeToFirstTokenMs / 1000);
  if (record.status >= 400) span.setAttribute('error.type', String(record.status));
  if (record.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Spans of the chat handler and the upstream engine, from one tracer. */
function createServerTracing(tracer: Tracer, shutdown: () => Promise<void> = async () => undefined): ServerTracing {
  const propagator = new W3CTraceContextPropagator();
  return {
    observeRequest(start) {
      // The client's `traceparent`, when it sent a valid one, is this span's parent.
      const parent = propagator.extract(ROOT_CONTEXT, start.headers, headerGetter);
      const span = tracer.startSpan(
        'chat',
        { kind: SpanKind.SERVER, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'quantum_chat', 'http.request.method': 'POST' } },
        parent,
      );
      const active = trace.setSpan(parent, span);
      return {
        // The engine starts inside: an upstream request made there finds this span as its parent.
        run: (work) => context.with(active, work),
        onSettled: (record) => settleChatSpan(span, record),
      };
    },
    onUpstreamRequest(start) {
      const url = new URL(start.url);
      const span = tracer.startSpan(
        `chat ${start.model}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': start.model,
            'server.address': url.hostname,
            'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
            'url.full': `${url.origin}${url.pathname}`,
          },
        },
        context.active(),
      );
      propagator.inject(trace.setSpan(context.active(), span), start.headers, {
        set: (carrier, key, value) => {
          carrier[key] = value;
        },
      });
      return {
        end(outcome) {
          if (outcome.status !== undefined) span.setAttribute('http.response.status_code', outcome.status);
          if (outcome.usage !== undefined) {
            span.setAttributes({ 'gen_ai.usage.input_tokens': outcome.usage.promptTokens, 'gen_ai.usage.output_tokens': outcome.usage.completionTokens });
          }
          if (outcome.finishReason !== undefined) span.setAttribute('gen_ai.response.finish_reasons', [outcome.finishReason]);
          if (outcome.error !== undefined) {
            const code = (outcome.error as { code?: unknown }).code;
            span.setAttribute('error.type', typeof code === 'string' ? code : 'error');
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        },
      };
    },
    shutdown,
  };
}

/**
 * Traces exported over OTLP/HTTP (JSON) to `url`, in batches. Installs the AsyncLocalStorage
 * context manager, so that a span made active around a request is found by the upstream engine.
 *
 * @example
 * const tracing = startOtlpTracing({ url: 'http://127.0.0.1:4318/v1/traces', serviceName: 'quantum-chat' });
 */
export function startOtlpTracing(options: { url: string; serviceName: string; headers?: Record<string, string> }): ServerTracing {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = new OTLPTraceExporter({ url: options.url, ...(options.headers ? { headers: options.headers } : {}) });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1000 })],
  });
  const tracer = provider.getTracer('@quantum-chat/server');
  return createServerTracing(tracer, () => provider.shutdown());
}
