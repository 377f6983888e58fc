import type { ChatCompletionRequest } from '@quantum-chat/core';

/**
 * The body of a chat completion request, without `stream` (the method decides). Fields the
 * types do not list (another server's `top_k`, say) are sent as given: our server
 * ignores unknown fields and names them in `x-quantum-ignored-params`, or forwards them to a
 * model configured to pass everything through.
 */
export type ChatCompletionCreateParams = Omit<ChatCompletionRequest, 'stream'> & { [field: string]: unknown };
