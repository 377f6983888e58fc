import type { ChatHandlerOptions, ChatRequestObserver, ChatRequestStart } from '@quantum-chat/core';
import type { ServerTracing } from './otel-tracing.js';
import type { ServerMetrics } from './server-metrics.js';

/**
 * Traces over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`) is set;
 * otherwise `undefined`, and no OpenTelemetry module is loaded at all.
 *
 * @example
 * const tracing = await startTracing(process.env);
 */
export async function startTracing(env: Readonly<Record<string, string | undefined>>): Promise<ServerTracing | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  const { startOtlpTracing, tracesUrlOf } = await import('./otel-tracing.js');
  return startOtlpTracing({ url: tracesUrlOf(env)!, serviceName: env.OTEL_SERVICE_NAME || 'quantum-chat' });
}

/** The handler's `observeRequest`: metrics and traces, each watching every chat request. */
export function observeRequests(metrics: ServerMetrics | undefined, tracing: ServerTracing | undefined): Pick<ChatHandlerOptions, 'observeRequest'> {
  if (metrics === undefined && tracing === undefined) return {};
  if (tracing === undefined) return { observeRequest: metrics!.observeRequest };
  if (metrics === undefined) return { observeRequest: tracing.observeRequest };
  return {
    observeRequest(start: ChatRequestStart): ChatRequestObserver {
      const counted = metrics.observeRequest();
      const traced = tracing.observeRequest(start);
      return {
        run: traced.run,
        onStreamStart: () => counted.onStreamStart?.(),
        onSettled(record) {
          counted.onSettled?.(record);
          traced.onSettled?.(record);
        },
      };
    },
  };
}
