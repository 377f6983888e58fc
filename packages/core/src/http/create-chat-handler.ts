import { MeasuredDemand, type AccessControl, type Admission, type Principal } from '../auth/access-control.js';
import { defaultApiKeyPrefixes, type ApiKeyPrefixes } from '../auth/parse-api-key.js';
import { createMemoryReplayGuard, type SignatureReplayGuard } from '../auth/signature-replay-guard.js';
import type { ChatHandler, ChatHttpRequest, ChatHttpResponse } from '../contract/chat-http-types.js';
import type { ChatEngine, ChatEngineRequest } from '../engine/chat-engine.js';
import { engineRequestOf } from '../engine/engine-request-of.js';
import { measurePromptOf } from '../engine/measured-prompt.js';
import { selectPassedThrough } from '../engine/pass-through-policy.js';
import { QuantumChatError } from '../errors/quantum-chat-error.js';
import { generateRandomId, type GenerateId } from '../ids.js';
import { modelNotFoundError } from '../models/model-not-found.js';
import { createModelRegistry, planAllows, type ModelRegistry, type RegisteredModel } from '../models/model-registry.js';
import { createOpenApiDocument } from '../openapi/create-openapi-document.js';
import { authenticateRequest } from '../request/authenticate-request.js';
import { ignoredParamsHeader } from '../request/ignored-params-header.js';
import { defaultMaxBodyBytes, defaultRequestTimeoutMs, headerValue, readRequestBody } from '../request/read-request-body.js';
import { routeRequest, unknownUrlError } from '../request/route-request.js';
import { validateChatRequest } from '../request/validate-chat-request.js';
import { ChatRequestWatch, type ChatRequestObserver, type ChatRequestRecord, type ChatRequestStart } from '../run/chat-request-observer.js';
import type { RunSettings } from '../run/run-settings.js';
import { runToCompletion } from '../run/run-to-completion.js';
import { startStream, type StartingStream } from '../run/run-to-stream.js';
import { ResumableStreams, type StreamsOptions } from '../streams/resumable-streams.js';
import type { StreamFormat } from '../wire/stream-frame-encoder.js';
import type { ResponseStore } from '../contract/response-store.js';
import { generateRandomResponseId, type GenerateResponseId } from '../run/responses/response-ids.js';
import { createMemoryResponseStore } from '../streams/responses/memory-response-store.js';
import { createResponsesApi, type RunRequestFields, type RunWire } from './responses/responses-api.js';
import { AdmittedRunReport } from './admitted-run-report.js';
import { HandlerAnswer } from './handler-answer.js';
import { toFetchHandler } from './to-fetch-handler.js';

/** How long a stored response is kept by default: 30 days (decisions §10). */
export const defaultResponseRetentionSeconds = 30 * 24 * 60 * 60;

export interface ChatHandlerOptions {
  /** The engine of every model; or give a `registry` for one engine per model. */
  engine?: ChatEngine;
  registry?: ModelRegistry;
  /** The engine behind test keys (decisions §6): the reference engine in the ready server. */
  testEngine?: ChatEngine;
  /**
   * Who may call the API: required. `staticApiKeys([...])` for a fixed list of keys,
   * `createAccessControl` from `@quantum-chat/access-control` for keys, plans and limits in a
   * store, or `insecureAcceptAnyApiKey()` (tests and local demos only: anyone can call).
   */
  accessControl: AccessControl;
  apiKeyPrefixes?: ApiKeyPrefixes;
  /** Secrets for `X-Service-Signature` (several during a rotation). */
  signingSecrets?: readonly string[];
  signatureToleranceSeconds?: number;
  /**
   * Every chat request must carry a valid `X-Service-Signature` (decisions §7); without it only
   * keys marked as requiring one must, and other requests may still send one (it is checked).
   */
  requireSignatures?: boolean;
  /**
   * Remembers accepted signatures so that each is accepted once; in memory by default (one
   * process), shared through Redis by the ready server when it has Redis.
   */
  signatureReplayGuard?: SignatureReplayGuard;
  /** The default stream format; a request may ask for `x-stream-format: openai`. */
  streamFormat?: StreamFormat;
  /**
   * The body limit in bytes; 1 MiB by default. Part of the host contract: every host honours
   * it (the core reads an `unread` body under it; hosts that parse bodies themselves read
   * `handler.maxBodyBytes`).
   */
  maxBodyBytes?: number;
  /**
   * Headers and body must arrive within this many milliseconds, else 408 `request_timeout`
   * (decisions §5, §9); 30 s by default, 0 turns it off. The core times the bodies it reads
   * itself (handed over `unread`); a host that owns the socket times the rest with its
   * server (`applyRequestTimeout` from `@quantum-chat/core/node`, or the framework's option)
   * and reads it from `handler.requestTimeoutMs`.
   */
  requestTimeoutMs?: number;
  /** Idle time before a `: keep-alive` comment on a stream; 15 s by default, 0 turns it off. */
  keepAliveIntervalMs?: number;
  /**
   * How long a stream may wait for its client to read (the socket stays full) before it is
   * given up: the engine is aborted, the request settled and the connection closed. 60 s by
   * default, 0 turns it off.
   */
  stallTimeoutMs?: number;
  /**
   * Aborted when the server shuts down: new chat requests get 503 `shutting_down`, and open
   * ones end with a `shutting_down` error (an error frame, without `[DONE]`, for streams).
   */
  shutdownSignal?: AbortSignal;
  /**
   * The document served at `/openapi.json`: the generated one by default, `false` for none. A
   * function gets the server URL to name (the host's mount point, e.g. `/compat/v1`) and the
   * ids of the registry's models, as `createOpenApiDocument` takes them.
   */
  openApiDocument?: ((context: { serverUrl: string; models: readonly string[] }) => unknown) | false;
  /**
   * Resumable streams (decisions §4.7): where they live (this process's memory by default),
   * whether every stream is resumable, and how many may run without a reader.
   */
  streams?: StreamsOptions;
  /**
   * Where the Responses API keeps stored responses (decisions §10): this process's memory by
   * default (`createMemoryResponseStore`); SQLite or PostgreSQL (`@quantum-chat/access-control`)
   * to keep them across restarts and instances.
   */
  responseStore?: ResponseStore;
  /** The Responses API: how long a stored response is kept (30 days by default), and its id maker (tests). */
  responses?: { retentionSeconds?: number; generateId?: GenerateResponseId };
  generateId?: GenerateId;
  /** Milliseconds since the epoch; injected so that tests get exact bytes. */
  now?: () => number;
  /** Reporting only: never alters the response. Called for every 5xx and every mid-stream error. */
  onError?: (error: unknown, context: { requestId: string }) => void;
  /**
   * Called once per chat request with how it ended (for logs and usage records), also for a
   * request refused before its engine ran (then with no tokens).
   */
  onRequestSettled?: (record: ChatRequestRecord) => void;
  /**
   * Called as each chat request arrives; the observer it returns watches that request (metrics,
   * traces): see `ChatRequestObserver`. Reporting only.
   */
  observeRequest?: (start: ChatRequestStart) => ChatRequestObserver | undefined;
}

/**
 * Said when a handler is made without `accessControl`. There is no default: one that admitted
 * any well-formed key left every copied example open to anyone.
 */
const missingAccessControl =
  'createChatHandler (and so createExpressRouter and fastifyQuantumChat) needs `accessControl`: who may call this API? There is no default. Choose one: ' +
  '`staticApiKeys([process.env.QUANTUM_CHAT_API_KEY])` admits only the keys you list; ' +
  "`createAccessControl({ store })` from '@quantum-chat/access-control' adds a key store, plans and limits; " +
  '`insecureAcceptAnyApiKey()` admits any well-formed key (tests and local demos only: anyone can make one). ' +
  "staticApiKeys and insecureAcceptAnyApiKey come from '@quantum-chat/core' (also re-exported by the Express and Fastify adapters).";

const requestIdPattern = /^[\w.:-]{1,128}$/;

/** The request's id: a sane incoming `x-request-id` is kept, anything else replaced. */
export function resolveRequestId(headers: ChatHttpRequest['headers'], generateId: GenerateId = generateRandomId): string {
  const incoming = headerValue(headers, 'x-request-id');
  return incoming !== undefined && requestIdPattern.test(incoming) ? incoming : generateId('request');
}

function jsonResponse(status: number, headers: Record<string, string>, body: string): ChatHttpResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body };
}

/**
 * The framework-neutral handler: routing, body rules, validation, auth, plans, limits, both
 * stream formats and the error envelope. Hosts only translate to and from it.
 *
 * @example
 * const handler = createChatHandler({ engine: createReferenceEngine(), accessControl: staticApiKeys([process.env.QUANTUM_CHAT_API_KEY!]) });
 * const response = await handler.fetch(new Request('http://localhost/v1/models'));
 */
export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  const registry = options.registry ?? (options.engine ? createModelRegistry({ engine: options.engine }) : undefined);
  if (registry === undefined) throw new TypeError('createChatHandler needs an `engine` or a `registry`.');
  const accessControl = options.accessControl;
  // Plain JavaScript gets past the type, so the choice is checked here, at startup.
  if (typeof accessControl?.authenticate !== 'function') throw new TypeError(missingAccessControl);
  const generateId = options.generateId ?? generateRandomId;
  const now = options.now ?? Date.now;
  const observeRequest = options.observeRequest;
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const requestTimeoutMs = options.requestTimeoutMs ?? defaultRequestTimeoutMs;
  const authSettings = {
    accessControl,
    prefixes: options.apiKeyPrefixes ?? defaultApiKeyPrefixes,
    signingSecrets: options.signingSecrets ?? [],
    nowSeconds: () => Math.floor(now() / 1000),
    ...(options.signatureToleranceSeconds !== undefined ? { signatureToleranceSeconds: options.signatureToleranceSeconds } : {}),
    requireSignatures: options.requireSignatures === true,
    replayGuard: options.signatureReplayGuard ?? createMemoryReplayGuard({ now }),
  };

  const keepAliveIntervalMs = options.keepAliveIntervalMs ?? 15_000;
  const stallTimeoutMs = options.stallTimeoutMs ?? 60_000;
  const streams = new ResumableStreams(options.streams ?? {}, { keepAliveMs: keepAliveIntervalMs, stallTimeoutMs, now });

  // The document names its mount point as the server URL; one handler is mostly mounted once.
  const openApiBodies = new Map<string, string>();
  function openApi(request: ChatHttpRequest): ChatHttpResponse {
    const basePath = request.basePath ?? '';
    if (options.openApiDocument === false) throw unknownUrlError(request.method, request.path, basePath);
    const serverUrl = basePath === '' ? '/v1' : basePath;
    let body = openApiBodies.get(serverUrl);
    if (body === undefined) {
      body = JSON.stringify((options.openApiDocument ?? createOpenApiDocument)({ serverUrl, models: registry!.list().map((model) => model.id) }));
      // The fetch face reads the mount point from the URL: a flood of prefixes must not grow this.
      if (openApiBodies.size >= 8) openApiBodies.clear();
      openApiBodies.set(serverUrl, body);
    }
    return jsonResponse(200, {}, body);
  }

  async function listModels(request: ChatHttpRequest, modelId?: string): Promise<ChatHttpResponse> {
    const principal = await authenticateRequest(request, new Uint8Array(0), authSettings, false);
    if (modelId === undefined) {
      const data = registry!.list().map((model) => registry!.toModelObject(model, principal?.plan, principal?.allowedModels));
      return jsonResponse(200, {}, JSON.stringify({ object: 'list', data }));
    }
    const model = registry!.get(modelId);
    if (model === undefined) throw modelNotFoundError(modelId, registry!.list());
    return jsonResponse(200, {}, JSON.stringify(registry!.toModelObject(model, principal?.plan, principal?.allowedModels)));
  }

  /** The registry's model a request names, if its plan allows it (decisions §6). */
  function findModel(modelId: string, principal: Principal, watch: ChatRequestWatch): RegisteredModel {
    const model = registry!.get(modelId);
    if (model === undefined) throw modelNotFoundError(modelId, registry!.list());
    watch.model = model.id;
    if (!planAllows(model, principal.plan)) {
      throw new QuantumChatError('plan_required', `The model '${model.id}' requires the '${model.requiresPlan}' plan; your organisation is on '${principal.plan}'.`, { param: 'model' });
    }
    return model;
  }

  /** A settle that runs beside the answer and fails: reported, never answered. */
  const reportSettleError = (error: unknown, requestId: string): void => options.onError?.(error, { requestId });

  /**
   * Admits a validated request of any API (quotas reserve its prompt and token limit) and
   * makes the settings of its one engine run, settled exactly as a chat completion's.
   */
  async function admitRun(
    request: ChatHttpRequest,
    requestId: string,
    watch: ChatRequestWatch,
    principal: Principal,
    model: RegisteredModel,
    baseRequest: Omit<ChatEngineRequest, 'reasoning'>,
    fields: RunRequestFields,
    wire: RunWire,
  ): Promise<{ settings: RunSettings; headers: Record<string, string>; engineRequest: ChatEngineRequest }> {
    const engine = principal.kind === 'test' && options.testEngine ? options.testEngine : model.engine;
    const engineRequest = engineRequestOf(baseRequest, model.reasoning);
    // The unknown fields the engine forwards are not "ignored"; the rest are named in a header.
    const passedThrough = selectPassedThrough(engine.passThrough, fields.unknownFields);
    if (passedThrough !== undefined) engineRequest.extraFields = passedThrough;
    // No `await` without an admission step: each one is a turn of the microtask queue.
    // The bound at once; the count when the access control asks (it refuses what it can without).
    const prompt = accessControl.admit === undefined ? undefined : measurePromptOf(engine, engineRequest);
    const admission: Admission | undefined = prompt === undefined ? undefined : await accessControl.admit?.(principal, new MeasuredDemand(requestId, model.id, engineRequest.maxTokens, prompt, wire.api));
    const headers: Record<string, string> = { ...admission?.headers };
    const ignoredParams = passedThrough === undefined ? fields.ignoredParams : fields.ignoredParams.filter((name) => !Object.hasOwn(passedThrough, name));
    if (ignoredParams.length > 0) headers['x-quantum-ignored-params'] = ignoredParamsHeader(ignoredParams);
    const settings: RunSettings = {
      engine,
      request: engineRequest,
      prompt,
      requestId,
      client: request.connection,
      shutdownSignal: options.shutdownSignal,
      generateId,
      createdSeconds: Math.floor(now() / 1000),
      streamFormat: wire.streamFormat,
      includeUsage: wire.includeUsage,
      keepAliveIntervalMs,
      stallTimeoutMs,
      report: new AdmittedRunReport(watch, admission, wire.api, requestId, reportSettleError),
    };
    return { settings, headers, engineRequest };
  }

  /** A request that runs an engine (a chat completion, a response), watched from arrival to settlement (logs, metrics, traces). */
  function watchedRun(
    request: ChatHttpRequest,
    requestId: string,
    work: (request: ChatHttpRequest, requestId: string, watch: ChatRequestWatch) => Promise<ChatHttpResponse | StartingStream>,
    api: ChatRequestRecord['api'],
  ): Promise<ChatHttpResponse | StartingStream> {
    const observer = observeRequest?.({ requestId, headers: request.headers });
    const watch = new ChatRequestWatch(requestId, observer, options.onRequestSettled, api);
    let answer: Promise<ChatHttpResponse | StartingStream>;
    try {
      answer = watch.run(() => work(request, requestId, watch));
    } catch (thrown) {
      answer = Promise.reject(thrown);
    }
    return answer.catch((thrown: unknown) => {
      throw watch.failed(thrown, request.connection);
    });
  }

  async function createCompletion(request: ChatHttpRequest, requestId: string, watch: ChatRequestWatch): Promise<ChatHttpResponse | StartingStream> {
    const { value, principal } = await readAndAuthenticate(request, watch);
    const validated = validateChatRequest(value);
    watch.stream = validated.stream;
    const resumable = validated.stream && (validated.resumable ?? streams.resumableByDefault);
    if (resumable && streams.refuseReason !== undefined) {
      throw new QuantumChatError('unsupported_value', `Resumable streams are not available on this server: ${streams.refuseReason}`, { param: 'stream_options.resumable' });
    }
    const model = findModel(validated.engineRequest.model, principal, watch);
    const format = headerValue(request.headers, 'x-stream-format') === 'openai' ? 'openai' : options.streamFormat ?? 'quantum';
    const { settings, headers } = await admitRun(request, requestId, watch, principal, model, validated.engineRequest, validated, {
      api: 'chat.completions',
      streamFormat: format,
      includeUsage: validated.includeUsage,
    });
    if (!validated.stream) return jsonResponse(200, headers, await runToCompletion(settings));
    if (resumable) return streams.start(settings, principal, headers);
    // Handed back as a value: this frame ends here while the stream waits for its first token.
    return startStream(settings, headers, watch);
  }

  /** The routes on a resumable stream: any key of the creator's organisation and kind (decisions §4.7). */
  async function streamRoute(request: ChatHttpRequest, name: 'resume-stream' | 'stream-result' | 'cancel-stream', streamId: string): Promise<ChatHttpResponse> {
    const principal = (await authenticateRequest(request, new Uint8Array(0), authSettings, true))!;
    // A request against the requests per minute, never against tokens.
    const admitted = accessControl.admitRequest === undefined ? undefined : await accessControl.admitRequest(principal);
    const response = name === 'resume-stream' ? await streams.resume(request, principal, streamId) : name === 'stream-result' ? await streams.result(principal, streamId) : await streams.cancel(principal, streamId);
    if (admitted !== undefined) Object.assign(response.headers, admitted.headers);
    return response;
  }

  /** Reads and authenticates a request body as a chat completion's is read (limits, JSON rules, signatures). */
  async function readAndAuthenticate(request: ChatHttpRequest, watch: ChatRequestWatch): Promise<{ value: unknown; principal: Principal }> {
    if (options.shutdownSignal?.aborted) throw new QuantumChatError('shutting_down', 'The server is shutting down; retry the request.');
    const read = readRequestBody(request, maxBodyBytes, requestTimeoutMs);
    const body = read instanceof Promise ? await read : read;
    watch.stream = (body.value as { stream?: unknown } | null)?.stream === true;
    const principal = (await authenticateRequest(request, body.bytes, authSettings, true))!;
    watch.principal = principal;
    return { value: body.value, principal };
  }

  /** A route that generates nothing: any key of the owner's organisation and kind, counted against the requests per minute only. */
  async function authenticateRoute(request: ChatHttpRequest): Promise<{ principal: Principal; headers: Record<string, string> }> {
    const principal = (await authenticateRequest(request, new Uint8Array(0), authSettings, true))!;
    const admitted = accessControl.admitRequest === undefined ? undefined : await accessControl.admitRequest(principal);
    return { principal, headers: { ...admitted?.headers } };
  }

  const responsesApi = createResponsesApi({
    store: options.responseStore ?? createMemoryResponseStore({ now }),
    retentionMs: (options.responses?.retentionSeconds ?? defaultResponseRetentionSeconds) * 1000,
    generateId: options.responses?.generateId ?? generateRandomResponseId,
    now,
    streams,
    readAndAuthenticate,
    authenticateRoute,
    findModel,
    admitRun,
    onError: (error, requestId) => options.onError?.(error, { requestId }),
  });

  function route(request: ChatHttpRequest, requestId: string): Promise<ChatHttpResponse | StartingStream> | ChatHttpResponse {
    const route = routeRequest(request.method, request.path, request.basePath);
    switch (route.name) {
      case 'create-chat-completion':
        return watchedRun(request, requestId, createCompletion, 'chat.completions');
      case 'create-response':
        return watchedRun(request, requestId, responsesApi.create, 'responses');
      case 'retrieve-response':
        return responsesApi.retrieve(request, route.responseId);
      case 'delete-response':
        return responsesApi.remove(request, route.responseId);
      case 'list-input-items':
        return responsesApi.inputItems(request, route.responseId);
      case 'cancel-response':
        return responsesApi.cancel(request, route.responseId);
      case 'list-models':
        return listModels(request);
      case 'retrieve-model':
        return listModels(request, route.modelId);
      case 'openapi':
        return openApi(request);
      case 'resume-stream':
      case 'stream-result':
      case 'cancel-stream':
        return streamRoute(request, route.name, route.streamId);
    }
  }

  /**
   * Chained with `then`, not `await`: a stream waiting for its first token then holds no
   * suspended async frames (each kept its registers alive: about a kilobyte per idle stream).
   * A stream comes back as a value (`StartingStream`) before its first token: only its own
   * promise waits, not one link per function between here and the engine.
   */
  function handle(request: ChatHttpRequest): Promise<ChatHttpResponse> {
    const answer = new HandlerAnswer(resolveRequestId(request.headers, generateId), options);
    try {
      return Promise.resolve(route(request, answer.requestId)).then(
        (value) => answer.answered(value),
        (thrown: unknown) => answer.failed(thrown),
      );
    } catch (thrown) {
      return Promise.resolve(answer.failed(thrown));
    }
  }

  return { handle, fetch: toFetchHandler(handle), maxBodyBytes, requestTimeoutMs };
}
