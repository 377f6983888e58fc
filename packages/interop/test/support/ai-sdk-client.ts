import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { installedVersion } from './compat-recorder.js';

/** `ai` and `@ai-sdk/openai-compatible`, as the table names them. */
export const aiSdkClient = 'ai + @ai-sdk/openai-compatible';
export const aiSdkVersion = `${installedVersion('ai')} + ${installedVersion('@ai-sdk/openai-compatible')}`;

/**
 * The provider as its docs show it for an OpenAI-compatible server.
 *
 * @example
 * const provider = createQuantumProvider({ baseURL: `${origin}/v1`, apiKey });
 * await generateText({ model: provider('quantum-lite'), prompt: 'Hi' });
 */
export function createQuantumProvider(options: Omit<Parameters<typeof createOpenAICompatible>[0], 'name'>) {
  return createOpenAICompatible({ name: 'quantum', ...options });
}
