import type { ChatEngineRequest } from './chat-engine.js';

/**
 * The engine's request: the validated one, made for this request alone, given the model's
 * reasoning setting in place. Not copied: a copy (its object and out-of-object properties, about
 * 0.1 KB) was what a stream held while the validated one was thrown away. Never spread either:
 * V8 gives a spread copy of an object that has properties beyond its literal's (each optional
 * field set after it) a hidden class of its own, a map and its descriptors per request.
 */
export function engineRequestOf(validated: Omit<ChatEngineRequest, 'reasoning'>, reasoning: boolean): ChatEngineRequest {
  const request = validated as ChatEngineRequest;
  request.reasoning = reasoning;
  return request;
}
