import type { ChatCompletionRequest } from '@quantum-chat/core';

/**
 * The body of a chat completion request, without `stream` (the method decides). Fields the
 * types do not list (another server's `reasoning_effort`, say) are sent as given: our server
 * ignores unknown fields and names them in `x-quantum-ignored-params`.
 */
export type ChatCompletionCreateParams = Omit<ChatCompletionRequest, 'stream'> & { [field: string]: unknown };
