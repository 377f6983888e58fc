import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as OTLP/JSON carries it (ids in hex, attributes as typed values), attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  kind: number;
  status: { code?: number };
  attributes: Record<string, unknown>;
  /** `service.name` of the resource that sent it. */
  service: unknown;
}

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

function valueOf(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((attribute) => [attribute.key, valueOf(attribute.value)]));
}

/** An OTLP/HTTP traces receiver on 127.0.0.1 (`POST /v1/traces`, JSON), as a collector would run. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: what `OTEL_EXPORTER_OTLP_ENDPOINT` names. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Content types of the export requests received. */
  contentTypes: string[];
  close(): Promise<void>;
}

/**
 * Starts a receiver that decodes each export request (an `ExportTraceServiceRequest` in OTLP's
 * JSON encoding) into spans and answers with an empty `ExportTraceServiceResponse`.
 *
 * @example
 * const receiver = await startOtlpReceiver();
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer(async (request, response) => {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      response.writeHead(404).end();
      return;
    }
    contentTypes.push(request.headers['content-type'] ?? '');
    const payload = JSON.parse(text) as {
      resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
    };
    for (const resourceSpans of payload.resourceSpans ?? []) {
      const service = attributesOf(resourceSpans.resource?.attributes)['service.name'];
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          spans.push({
            traceId: String(span.traceId),
            spanId: String(span.spanId),
            parentSpanId: typeof span.parentSpanId === 'string' && span.parentSpanId !== '' ? span.parentSpanId : undefined,
            name: String(span.name),
            kind: Number(span.kind),
            status: (span.status as { code?: number }) ?? {},
            attributes: attributesOf(span.attributes as OtlpAttribute[]),
            service,
          });
        }
      }
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
