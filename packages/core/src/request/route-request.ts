import { QuantumChatError } from '../errors/quantum-chat-error.js';

/** The endpoints the handler serves below its mount point (decisions §1). */
export type ChatRoute =
  | { name: 'create-chat-completion' }
  | { name: 'list-models' }
  | { name: 'retrieve-model'; modelId: string }
  | { name: 'openapi' }
  /** Resumable streams (decisions §4.7). */
  | { name: 'resume-stream'; streamId: string }
  | { name: 'stream-result'; streamId: string }
  | { name: 'cancel-stream'; streamId: string }
  /** The Responses API (decisions §10). */
  | { name: 'create-response' }
  | { name: 'retrieve-response'; responseId: string }
  | { name: 'delete-response'; responseId: string }
  | { name: 'cancel-response'; responseId: string }
  | { name: 'list-input-items'; responseId: string };

const modelPath = /^\/models\/([^/]+)$/;
const streamPath = /^\/chat\/completions\/([^/]+)(?:\/(stream|cancel))?$/;

const responsePath = /^\/responses\/([^/]+)(?:\/(cancel|input_items))?$/;

/**
 * 405 `method_not_allowed` with its `Allow` header (HEAD comes with GET), worded as the handler
 * words it; hosts use it for their own routes (`/healthz`, ...).
 */
export function methodNotAllowedError(method: string, path: string, methods: readonly string[]): QuantumChatError {
  const allowed = methods.includes('GET') && !methods.includes('HEAD') ? [...methods, 'HEAD'] : methods;
  return new QuantumChatError('method_not_allowed', `Method ${method.toUpperCase()} is not allowed on ${path.slice(0, 200)}; use ${allowed.join(', ')}.`, {
    headers: { allow: allowed.join(', ') },
  });
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function allowOnly(methods: string[], method: string, path: string): void {
  if (methods.includes(method) || (method === 'HEAD' && methods.includes('GET'))) return;
  throw methodNotAllowedError(method, path, methods);
}

/** The 404 of a path the handler does not serve, naming the full path (mount point included). */
export function unknownUrlError(method: string, path: string, basePath = ''): QuantumChatError {
  return new QuantumChatError('unknown_url', `Unknown request URL: ${method.toUpperCase()} ${(basePath + path).slice(0, 200)}.`);
}

/**
 * Finds the route of a method and path (below the mount point `basePath`), or throws 404
 * `unknown_url` / 405 with `Allow`. Messages name the full path, `basePath` included.
 */
export function routeRequest(method: string, rawPath: string, basePath = ''): ChatRoute {
  const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
  const verb = method.toUpperCase();
  if (path === '/chat/completions') {
    allowOnly(['POST'], verb, basePath + path);
    return { name: 'create-chat-completion' };
  }
  if (path === '/models') {
    allowOnly(['GET'], verb, basePath + path);
    return { name: 'list-models' };
  }
  if (path === '/openapi.json') {
    allowOnly(['GET'], verb, basePath + path);
    return { name: 'openapi' };
  }
  const stream = streamPath.exec(path);
  if (stream) {
    const streamId = decodeSegment(stream[1]!);
    if (stream[2] === 'cancel') {
      allowOnly(['POST'], verb, basePath + path);
      return { name: 'cancel-stream', streamId };
    }
    allowOnly(['GET'], verb, basePath + path);
    return { name: stream[2] === 'stream' ? 'resume-stream' : 'stream-result', streamId };
  }
  if (path === '/responses') {
    allowOnly(['POST'], verb, basePath + path);
    return { name: 'create-response' };
  }
  const response = responsePath.exec(path);
  if (response) {
    const responseId = decodeSegment(response[1]!);
    if (response[2] === 'cancel') {
      allowOnly(['POST'], verb, basePath + path);
      return { name: 'cancel-response', responseId };
    }
    if (response[2] === 'input_items') {
      allowOnly(['GET'], verb, basePath + path);
      return { name: 'list-input-items', responseId };
    }
    allowOnly(['GET', 'DELETE'], verb, basePath + path);
    return verb === 'DELETE' ? { name: 'delete-response', responseId } : { name: 'retrieve-response', responseId };
  }
  const model = modelPath.exec(path);
  if (model) {
    allowOnly(['GET'], verb, basePath + path);
    return { name: 'retrieve-model', modelId: decodeSegment(model[1]!) };
  }
  throw unknownUrlError(verb, path, basePath);
}
