import { QuantumChatError } from '../errors/quantum-chat-error.js';

/** The endpoints the handler serves below its mount point (decisions §1). */
export type ChatRoute =
  | { name: 'create-chat-completion' }
  | { name: 'list-models' }
  | { name: 'retrieve-model'; modelId: string }
  | { name: 'openapi' };

const modelPath = /^\/models\/([^/]+)$/;

function allowOnly(methods: string[], method: string, path: string): void {
  if (methods.includes(method) || (method === 'HEAD' && methods.includes('GET'))) return;
  const allowed = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
  throw new QuantumChatError('method_not_allowed', `Method ${method} is not allowed on ${path}; use ${allowed.join(', ')}.`, {
    headers: { allow: allowed.join(', ') },
  });
}

/** Finds the route of a method and path, or throws 404 `unknown_url` / 405 with `Allow`. */
export function routeRequest(method: string, rawPath: string): ChatRoute {
  const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
  const verb = method.toUpperCase();
  if (path === '/chat/completions') {
    allowOnly(['POST'], verb, path);
    return { name: 'create-chat-completion' };
  }
  if (path === '/models') {
    allowOnly(['GET'], verb, path);
    return { name: 'list-models' };
  }
  if (path === '/openapi.json') {
    allowOnly(['GET'], verb, path);
    return { name: 'openapi' };
  }
  const model = modelPath.exec(path);
  if (model) {
    allowOnly(['GET'], verb, path);
    let modelId: string;
    try {
      modelId = decodeURIComponent(model[1]!);
    } catch {
      modelId = model[1]!;
    }
    return { name: 'retrieve-model', modelId };
  }
  throw new QuantumChatError('unknown_url', `Unknown request URL: ${verb} ${path.slice(0, 200)}.`);
}
