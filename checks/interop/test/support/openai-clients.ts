import OpenAI6 from 'openai';
import OpenAI4 from 'openai4';
import OpenAI5Old from 'openai5old';
import OpenAI7 from 'openai7';
import { installedVersion } from './compat-recorder.js';

/**
 * The part of the openai SDK this suite drives, typed once: the four installed majors differ
 * in their type declarations, not in these calls.
 */
export interface OpenAILike {
  chat: { completions: { create(body: Record<string, unknown>, options?: Record<string, unknown>): Promise<any> } };
  models: { list(): Promise<{ data: any[] }> & AsyncIterable<any> };
}

/** What a `chat.completions.stream()` helper returns, in every version that has one. */
interface ChatCompletionStreamLike extends AsyncIterable<any> {
  on(event: string, listener: (...args: any[]) => void): this;
  finalChatCompletion(): Promise<any>;
}

export interface OpenAIClientVersion {
  /** The npm name it is installed under (an alias for all but the current major). */
  packageName: string;
  version: string;
  /**
   * Versions before 5.10.3 pass only unnamed events (and a few OpenAI prefixes) through as
   * chunks; any other `event:` name is yielded as an `{ event, data }` wrapper.
   */
  wrapsNamedEvents: boolean;
  create(options: { apiKey: string; baseURL: string; defaultHeaders?: Record<string, string | null>; maxRetries?: number; defaultQuery?: Record<string, string> }): OpenAILike;
  /** `chat.completions.stream()` (5.x and later) or `beta.chat.completions.stream()` (4.x). */
  streamHelper(client: OpenAILike, body: Record<string, unknown>): ChatCompletionStreamLike;
  /** The SDK's error classes, to check `instanceof` against the right copy. */
  errors: Record<'APIError' | 'AuthenticationError' | 'BadRequestError' | 'PermissionDeniedError' | 'NotFoundError' | 'RateLimitError' | 'InternalServerError' | 'OpenAIError', new (...args: any[]) => Error>;
}

type AnyOpenAI = typeof OpenAI6 | typeof OpenAI7 | typeof OpenAI4 | typeof OpenAI5Old;

function describeClient(packageName: string, OpenAI: AnyOpenAI, helperPath: 'chat' | 'beta.chat', wrapsNamedEvents: boolean): OpenAIClientVersion {
  const Constructor = OpenAI as unknown as new (options: Record<string, unknown>) => OpenAILike;
  const errorSource = OpenAI as unknown as OpenAIClientVersion['errors'];
  return {
    packageName,
    version: installedVersion(packageName),
    wrapsNamedEvents,
    create: (options) => new Constructor(options),
    streamHelper(client, body) {
      const owner = (helperPath === 'chat' ? (client as any).chat : (client as any).beta.chat).completions;
      return owner.stream(body) as ChatCompletionStreamLike;
    },
    errors: {
      APIError: errorSource.APIError,
      AuthenticationError: errorSource.AuthenticationError,
      BadRequestError: errorSource.BadRequestError,
      PermissionDeniedError: errorSource.PermissionDeniedError,
      NotFoundError: errorSource.NotFoundError,
      RateLimitError: errorSource.RateLimitError,
      InternalServerError: errorSource.InternalServerError,
      OpenAIError: errorSource.OpenAIError,
    },
  };
}

/** openai 6 (what Node 20 resolves), 7 (newest), the last 4.x, and 5.10.2 (the last before named events were passed through). */
export const openaiClients: readonly OpenAIClientVersion[] = [
  describeClient('openai', OpenAI6, 'chat', false),
  describeClient('openai7', OpenAI7, 'chat', false),
  describeClient('openai5old', OpenAI5Old, 'chat', true),
  describeClient('openai4', OpenAI4, 'beta.chat', true),
];
