/** A tool call as a client rebuilt it from a stream. */
export interface CollectedToolCall {
  /** The call id, when the stream gave one. */
  id?: string;
  name: string;
  /** The argument fragments joined: a JSON string. */
  arguments: string;
}

/** Token counts as a client reports them. */
export interface CollectedUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens?: number;
  reasoningTokens?: number;
}

/** A stream that finished: everything the client rebuilt from it. */
export interface CollectedAnswer {
  /** All reasoning pieces joined (`''` when there were none). */
  reasoning: string;
  /** All content pieces joined (`''` when there were none). */
  content: string;
  toolCalls: CollectedToolCall[];
  /** `null` when the stream never gave one. */
  finishReason: string | null;
  usage?: CollectedUsage;
}

/** A request that failed: an HTTP error, or an error frame in the stream. */
export interface CollectedError {
  error: {
    /** The HTTP status, for errors answered before the stream started. */
    status?: number;
    code?: string | null;
    type?: string | null;
    message?: string;
  };
}

/**
 * What a client under test hands back to {@link runClientConformance} for one request.
 * Collectors return an error instead of throwing it.
 */
export type CollectedCompletion = CollectedAnswer | CollectedError;

/** What {@link runClientConformance} gives the client under test for one request. */
export interface CollectInput {
  /** The fixture server, mounted like ours: `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  apiKey: string;
  /** The chat request body to send (with `stream: true`). */
  request: Record<string, unknown>;
}

export type Collect = (input: CollectInput) => Promise<CollectedCompletion>;
