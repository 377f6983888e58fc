import { createOpenAICompatible, OpenAICompatibleChatLanguageModel } from '@ai-sdk/openai-compatible';
import * as ai6 from 'ai';
import * as ai7 from 'ai7';
import { createOpenAICompatible as createOpenAICompatible3, OpenAICompatibleChatLanguageModel as OpenAICompatibleChatLanguageModel3 } from 'ai-sdk-openai-compatible3';
import { installedVersion } from './compat-recorder.js';

/** `ai` and `@ai-sdk/openai-compatible`, as the table names them. */
export const aiSdkClient = 'ai + @ai-sdk/openai-compatible';

/** The provider options this suite passes, in every major. */
interface QuantumProviderOptions {
  baseURL: string;
  apiKey?: string;
  headers?: Record<string, string>;
  includeUsage?: boolean;
}

/**
 * One installed major of the AI SDK with its OpenAI-compatible provider. The suite drives both
 * through the current major's types: the calls it makes are the same in each.
 */
export interface AiSdkVersion {
  /** `6.0.326 + 2.0.92`: `ai`, then `@ai-sdk/openai-compatible`. */
  version: string;
  ai: typeof ai6;
  /** The provider as its docs show it for an OpenAI-compatible server. */
  createProvider(options: QuantumProviderOptions): ReturnType<typeof createOpenAICompatible>;
  /** The provider's chat model class, for settings `createOpenAICompatible` does not pass on. */
  ChatLanguageModel: typeof OpenAICompatibleChatLanguageModel;
}

export const aiSdkVersions: readonly AiSdkVersion[] = [
  {
    version: `${installedVersion('ai')} + ${installedVersion('@ai-sdk/openai-compatible')}`,
    ai: ai6,
    createProvider: (options) => createOpenAICompatible({ name: 'quantum', ...options }),
    ChatLanguageModel: OpenAICompatibleChatLanguageModel,
  },
  {
    version: `${installedVersion('ai7')} + ${installedVersion('ai-sdk-openai-compatible3')}`,
    ai: ai7 as unknown as typeof ai6,
    createProvider: (options) => createOpenAICompatible3({ name: 'quantum', ...options }) as unknown as ReturnType<typeof createOpenAICompatible>,
    ChatLanguageModel: OpenAICompatibleChatLanguageModel3 as unknown as typeof OpenAICompatibleChatLanguageModel,
  },
];

