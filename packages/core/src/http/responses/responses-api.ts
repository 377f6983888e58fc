import type { Principal } from '../../auth/access-control.js';
import type { ChatHttpRequest, ChatHttpResponse } from '../../contract/chat-http-types.js';
import type { ResponseStore, StoredInputItem } from '../../contract/response-store.js';
import type { ChatEngineRequest } from '../../engine/chat-engine.js';
import { QuantumChatError } from '../../errors/quantum-chat-error.js';
import { toErrorEnvelope } from '../../errors/to-error-envelope.js';
import type { RegisteredModel } from '../../models/model-registry.js';
import { toEngineRequest, referencedItemIds, resolveInputItems, type LoadedConversation } from '../../request/responses/to-engine-request.js';
import { validateCreateResponse, type ValidatedResponseRequest } from '../../request/responses/validate-create-response.js';
import type { ChatRequestWatch } from '../../run/chat-request-observer.js';
import type { RunSettings } from '../../run/run-settings.js';
import { sseHeadersWith, startStream, type StartingStream } from '../../run/run-to-stream.js';
import type { GenerateResponseId } from '../../run/responses/response-ids.js';
import { responseFramer, runResponseToCompletion, type ResponseRunOptions } from '../../run/responses/response-run.js';
import { createResponseShell } from '../../run/responses/response-shell.js';
import type { ConversationItem } from '../../schemas/responses/input-item.js';
import type { ResponseObject } from '../../schemas/responses/response-object.js';
import { resumePosition, streamOwner, type ResumableStreams, type StreamWire } from '../../streams/resumable-streams.js';
import { outputItemToConversationItem } from '../../streams/responses/memory-response-store.js';
import type { StreamFormat } from '../../wire/stream-frame-encoder.js';
import { toItemResource } from '../../wire/responses/to-item-resource.js';

/** How many earlier responses `previous_response_id` may chain through (decisions §10): a longer chain is a 400. */
export const maxResponseChain = 100;

/** The fields a validated request of either API ignored or passes through to the engine. */
export interface RunRequestFields {
  ignoredParams: string[];
  unknownFields: Record<string, unknown> | undefined;
}

/** Which API a run answers, and how its stream and usage are written. */
export interface RunWire {
  api: 'chat.completions' | 'responses';
  streamFormat: StreamFormat;
  includeUsage: boolean;
}

/** What the Responses API borrows from the handler: the chat path's own steps. */
export interface ResponsesApiDeps {
  store: ResponseStore;
  /** Where a stored response's stream is written, so that it can be resumed, and cancelled from any instance. */
  streams: ResumableStreams;
  onError(error: unknown, requestId: string): void;
  retentionMs: number;
  generateId: GenerateResponseId;
  now: () => number;
  /** Reads the body (limits, JSON rules) and authenticates with it (signatures), as for chat. */
  readAndAuthenticate(request: ChatHttpRequest, watch: ChatRequestWatch): Promise<{ value: unknown; principal: Principal }>;
  /** Authenticates a route without a body and counts it against the requests per minute. */
  authenticateRoute(request: ChatHttpRequest): Promise<{ principal: Principal; headers: Record<string, string> }>;
  findModel(modelId: string, principal: Principal, watch: ChatRequestWatch): RegisteredModel;
  admitRun(
    request: ChatHttpRequest,
    requestId: string,
    watch: ChatRequestWatch,
    principal: Principal,
    model: RegisteredModel,
    baseRequest: Omit<ChatEngineRequest, 'reasoning'>,
    fields: RunRequestFields,
    wire: RunWire,
  ): Promise<{ settings: RunSettings; headers: Record<string, string> }>;
}

/** The stream store's kind of a response's stream. */
const streamKind = 'responses';

/** A JSON answer. Its headers a literal with the spread last: one that starts with a spread gets a hidden class per answer on Node 20. */
function json(status: number, headers: Record<string, string>, body: unknown): ChatHttpResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) };
}

function responseNotFound(id: string, param?: string): QuantumChatError {
  return new QuantumChatError('response_not_found', `No response with id '${id.slice(0, 100)}' was found.`, param === undefined ? {} : { param });
}

/** The prefix of a minted input item id, by item type (a client's own id is kept). */
function mintItemId(item: ConversationItem, generateId: GenerateResponseId): string {
  if (item.type === 'message') return generateId('message');
  if (item.type === 'reasoning') return generateId('reasoning');
  if (item.type === 'function_call') return generateId('function-call');
  // OpenAI's prefix for a function call's output item.
  return 'fco_' + generateId('call').slice('call_'.length);
}

/** The request's input items as stored: references resolved, each with an id. */
function toStoredItems(items: readonly ConversationItem[], generateId: GenerateResponseId): StoredInputItem[] {
  return items.map((item) => ({ ...item, id: typeof item.id === 'string' && item.id !== '' ? item.id : mintItemId(item, generateId) }) as StoredInputItem);
}

/** What a request that names nothing stored loads: nothing. */
const noEarlierItems: LoadedConversation = Object.freeze({});

/** Whether a request names nothing stored (no `previous_response_id`, no `item_reference`): it skips the store and its await. */
function startsConversation(request: ValidatedResponseRequest): boolean {
  if (request.previousResponseId !== undefined) return false;
  for (const item of request.input) if (item.type === 'item_reference') return false;
  return true;
}

/** Where a resume starts in the stream store: after the frame of event `starting_after` (frame n + 1). */
function resumeAfter(request: ChatHttpRequest): number {
  const query = new URLSearchParams(request.query ?? '').get('starting_after');
  if (query === null) return 0;
  return resumePosition({ ...request, headers: {} }) + 1;
}

/** The `Response` objects routes of the handler (decisions §10): create, retrieve, delete, input items. */
export function createResponsesApi(deps: ResponsesApiDeps) {
  const { store } = deps;
  const nowSeconds = () => Math.floor(deps.now() / 1000);

  /** The conversation before a request: its previous responses (oldest first) and the items it references. */
  async function loadConversation(request: ValidatedResponseRequest, owner: string): Promise<LoadedConversation> {
    const loaded: LoadedConversation = {};
    if (request.previousResponseId !== undefined) {
      const chain: ConversationItem[][] = [];
      let id: string | null = request.previousResponseId;
      for (let depth = 0; id !== null; depth++) {
        if (depth === maxResponseChain) {
          throw new QuantumChatError('invalid_value', `Invalid value for 'previous_response_id': the conversation chains more than ${maxResponseChain} responses; send its items as input instead.`, {
            param: 'previous_response_id',
          });
        }
        const record = await store.get(id, owner);
        if (record === undefined) {
          if (depth === 0) throw responseNotFound(id, 'previous_response_id');
          // An earlier link expired or was deleted: the conversation starts after it.
          break;
        }
        chain.push([...record.inputItems, ...record.response.output.map(outputItemToConversationItem)]);
        id = record.response.previous_response_id;
      }
      loaded.previousItems = chain.reverse().flat();
    }
    const ids = referencedItemIds(request);
    if (ids.length > 0) loaded.referencedItems = await store.findItems(ids, owner);
    return loaded;
  }

  /** `POST /responses`: one engine run, answered as a `Response` or its event stream. */
  async function create(request: ChatHttpRequest, requestId: string, watch: ChatRequestWatch): Promise<ChatHttpResponse | StartingStream> {
    const { value, principal } = await deps.readAndAuthenticate(request, watch);
    const validated = validateCreateResponse(value);
    watch.stream = validated.stream;
    const model = deps.findModel(validated.model, principal, watch);
    const owner = streamOwner(principal);
    const loaded = startsConversation(validated) ? noEarlierItems : await loadConversation(validated, owner);
    const baseRequest = toEngineRequest(validated, loaded);
    const { settings, headers } = await deps.admitRun(request, requestId, watch, principal, model, baseRequest, validated, {
      api: 'responses',
      streamFormat: 'quantum',
      includeUsage: false,
    });
    const id = deps.generateId('response');
    const shell = createResponseShell(validated, { id, createdAt: nowSeconds(), model: validated.model });
    let save: ((response: ResponseObject) => Promise<void>) | undefined;
    if (validated.store) {
      const inputItems = toStoredItems(resolveInputItems(validated.input, loaded.referencedItems), deps.generateId);
      save = (response) => store.save({ response, owner, inputItems, expiresAt: deps.now() + deps.retentionMs });
    }
    const runOptions: ResponseRunOptions = {
      shell,
      generateId: deps.generateId,
      showReasoning: model.reasoning,
      showLogprobs: validated.logprobs !== undefined,
      nowSeconds,
      ...(save === undefined ? {} : { onFinal: save, onStopped: (response: ResponseObject) => void save!(response).catch((error: unknown) => deps.onError(error, requestId)) }),
    };
    // A background run goes on without its client; a foreground one stops when its client leaves, as a chat stream does.
    const wire: StreamWire = { id, kind: streamKind, makeFramer: responseFramer(runOptions), outlivesClient: validated.background };
    if (validated.background) {
      // Saved as queued before the answer names it: a retrieve or cancel right after finds it.
      const queued = shell.build({ status: 'queued', output: [], usage: null });
      await save!(queued);
      const inProgress = shell.build({ status: 'in_progress', output: [], usage: null });
      await save!(inProgress);
      if (validated.stream) return deps.streams.start(settings, principal, headers, wire);
      const { created, frames } = deps.streams.runDetached(settings, principal, wire);
      // A run refused before its first event never framed a response: it is saved as failed here.
      frames.catch((error: unknown) => {
        const { code, message } = toErrorEnvelope(error).error;
        void save!(shell.build({ status: 'failed', output: [], usage: null, completedAt: nowSeconds(), error: { code: code ?? 'internal_error', message } })).catch((failure: unknown) =>
          deps.onError(failure, requestId),
        );
      });
      if (created !== undefined) await created;
      return json(200, headers, queued);
    }
    if (!validated.stream) {
      const state = await runResponseToCompletion(settings, runOptions);
      if (save !== undefined) await save(shell.build(state));
      return json(200, headers, shell.body(state));
    }
    // A stored stream is written to the stream store: resumable with `starting_after` (decisions §10).
    if (save !== undefined) {
      // Saved in progress first, as OpenAI does: a retrieve while it streams finds it; its end saves its final state.
      await save(shell.build({ status: 'in_progress', output: [], usage: null }));
      return deps.streams.start(settings, principal, headers, wire).catch(async (error: unknown) => {
        // Refused before its first event (an HTTP error, no id handed out): not kept, as on the JSON path.
        await store.delete(id, owner).catch((failure: unknown) => deps.onError(failure, requestId));
        throw error;
      });
    }
    // Handed back as a value: this frame ends here while the stream waits for its first event.
    return startStream(settings, headers, watch, wire.makeFramer);
  }

  /** `GET /responses/{id}`. */
  async function retrieve(request: ChatHttpRequest, id: string): Promise<ChatHttpResponse> {
    const { principal, headers } = await deps.authenticateRoute(request);
    const query = new URLSearchParams(request.query ?? '');
    const stream = query.get('stream');
    if (stream !== null && stream !== 'true' && stream !== 'false') {
      throw new QuantumChatError('invalid_value', `Invalid value for 'stream': expected true or false, got '${stream.slice(0, 40)}'.`, { param: 'stream' });
    }
    // The events after `starting_after` (a sequence_number); the store numbers frames from 1.
    const after = stream === 'true' ? resumeAfter(request) : 0;
    const record = await store.get(id, streamOwner(principal));
    if (record === undefined) throw responseNotFound(id);
    if (stream !== 'true') return json(200, headers, record.response);
    const events = await deps.streams.follow(request, principal, id, streamKind, after);
    if (events === undefined) {
      throw new QuantumChatError('invalid_value', `The response '${id.slice(0, 100)}' has no stream to resume: it was not streamed, or its stream is no longer kept.`, { param: 'stream' });
    }
    return { status: 200, headers: sseHeadersWith(headers), events };
  }

  /** `POST /responses/{id}/cancel`: stops a background response; a finished one is answered as it is. */
  async function cancel(request: ChatHttpRequest, id: string): Promise<ChatHttpResponse> {
    const { principal, headers } = await deps.authenticateRoute(request);
    const owner = streamOwner(principal);
    const record = await store.get(id, owner);
    if (record === undefined) throw responseNotFound(id);
    if (!record.response.background) {
      throw new QuantumChatError('invalid_value', `Only a background response can be cancelled; '${id.slice(0, 100)}' was not created with 'background: true'.`, { param: 'response_id' });
    }
    const status = record.response.status;
    if (status !== 'queued' && status !== 'in_progress') return json(200, headers, record.response);
    await deps.streams.requestCancel(id);
    const cancelled: ResponseObject = { ...record.response, status: 'cancelled', completed_at: nowSeconds() };
    const now = await store.get(id, owner);
    // The run may have ended meanwhile: its own final state stands.
    if (now !== undefined && (now.response.status === 'queued' || now.response.status === 'in_progress')) await store.save({ ...now, response: { ...now.response, ...cancelled, output: now.response.output } });
    const final = await store.get(id, owner);
    return json(200, headers, final?.response ?? cancelled);
  }

  /** `DELETE /responses/{id}`: OpenAI's deletion object. */
  async function remove(request: ChatHttpRequest, id: string): Promise<ChatHttpResponse> {
    const { principal, headers } = await deps.authenticateRoute(request);
    if (!(await store.delete(id, streamOwner(principal)))) throw responseNotFound(id);
    return json(200, headers, { id, object: 'response.deleted', deleted: true });
  }

  /** `GET /responses/{id}/input_items`: a page of the request's input items, newest first by default (as OpenAI). */
  async function inputItems(request: ChatHttpRequest, id: string): Promise<ChatHttpResponse> {
    const { principal, headers } = await deps.authenticateRoute(request);
    const query = new URLSearchParams(request.query ?? '');
    const limitText = query.get('limit');
    const limit = limitText === null ? 20 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      throw new QuantumChatError('invalid_value', `Invalid value for 'limit': expected an integer from 1 to 100, got '${(limitText ?? '').slice(0, 40)}'.`, { param: 'limit' });
    }
    const order = query.get('order') ?? 'desc';
    if (order !== 'asc' && order !== 'desc') {
      throw new QuantumChatError('invalid_value', `Invalid value for 'order': expected 'asc' or 'desc', got '${order.slice(0, 40)}'.`, { param: 'order' });
    }
    const after = query.get('after') ?? undefined;
    const page = await store.listInputItems(id, streamOwner(principal), { after, limit, order });
    if (page === undefined) throw responseNotFound(id);
    const data = page.items.map(toItemResource);
    return json(200, headers, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: page.hasMore });
  }

  return { create, retrieve, remove, inputItems, cancel };
}
