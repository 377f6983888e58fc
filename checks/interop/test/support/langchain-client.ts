import { ChatOpenAI } from '@langchain/openai';
import { installedVersion } from './compat-recorder.js';

export const langchainClient = '@langchain/openai';
export const langchainVersion = `${installedVersion('@langchain/openai')} (+ @langchain/core ${installedVersion('@langchain/core')})`;

/**
 * `ChatOpenAI` pointed at our base URL, as LangChain's docs show it for OpenAI-compatible servers.
 *
 * @example
 * const chat = createChatOpenAI({ model: 'quantum-lite', apiKey, baseURL: `${origin}/v1` });
 */
export function createChatOpenAI(options: { model: string; apiKey: string; baseURL: string; headers?: Record<string, string | null>; maxRetries?: number; streamUsage?: boolean }): ChatOpenAI {
  return new ChatOpenAI({
    model: options.model,
    apiKey: options.apiKey,
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    ...(options.streamUsage !== undefined ? { streamUsage: options.streamUsage } : {}),
    configuration: { baseURL: options.baseURL, ...(options.headers ? { defaultHeaders: options.headers } : {}) },
  });
}
