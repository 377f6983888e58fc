import type { EchoedFunctionTool, ResponseObject, ResponseOutputItem, ResponseStatus, ResponseUsage } from '../../schemas/responses/response-object.js';
import type { ValidatedResponseRequest } from '../../request/responses/validate-create-response.js';

/** Who a response is and when it began: drawn by the caller (the id is the store's key). */
export interface ResponseIdentity {
  id: string;
  /** Seconds since the epoch. */
  createdAt: number;
  /** The model as the response names it (the request's). */
  model: string;
}

/** The varying part of a response: everything else is the request's settings, echoed. */
export interface ResponseState {
  status: ResponseStatus;
  output: ResponseOutputItem[];
  usage: ResponseUsage | null;
  completedAt?: number | null;
  incompleteReason?: 'max_output_tokens' | 'content_filter';
  error?: { code: string; message: string };
}

function echoTools(request: ValidatedResponseRequest): EchoedFunctionTool[] {
  return request.tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description ?? null,
    parameters: tool.parameters ?? null,
    strict: tool.strict ?? null,
  }));
}

/**
 * The `Response` objects of one request: its settings echoed as OpenAI echoes them (absent ones
 * as `null`, defaults as applied), computed once, with the state of the moment around them.
 */
export function createResponseShell(request: ValidatedResponseRequest, identity: ResponseIdentity) {
  const text: ResponseObject['text'] = request.verbosity === undefined ? { format: request.textFormat } : { format: request.textFormat, verbosity: request.verbosity };
  // The request's part of every response, in OpenAI's field names; what changes comes first.
  const settings = {
    background: request.background,
    instructions: request.instructions ?? null,
    max_output_tokens: request.maxOutputTokens ?? null,
    model: identity.model,
    parallel_tool_calls: request.parallelToolCalls,
    previous_response_id: request.previousResponseId ?? null,
    reasoning: { effort: request.reasoningEffort ?? null, summary: request.reasoningSummary ?? null },
    store: request.store,
    temperature: request.temperature,
    text,
    tool_choice: request.toolChoice,
    tools: echoTools(request),
    top_p: request.topP ?? 1,
    truncation: 'disabled' as const,
    user: request.user ?? null,
    metadata: request.metadata,
    ...(request.logprobs === undefined ? {} : { top_logprobs: request.logprobs.topLogprobs }),
  };
  let settingsJson: string | undefined;
  const head = `{"id":${JSON.stringify(identity.id)},"object":"response","created_at":${identity.createdAt},"status":"`;

  function changing(state: ResponseState) {
    return {
      completed_at: state.completedAt ?? null,
      error: state.error ?? null,
      incomplete_details: state.incompleteReason === undefined ? null : { reason: state.incompleteReason },
      usage: state.usage,
    };
  }

  return {
    identity,
    build(state: ResponseState): ResponseObject {
      return { id: identity.id, object: 'response', created_at: identity.createdAt, status: state.status, ...changing(state), ...settings, output: state.output };
    },
    /**
     * `JSON.stringify(build(state))` with the output items given as JSON: the stream encoder wrote
     * each item whole in its `output_item.done` event and the final response repeats them, and
     * the settings, the same in every response of a stream, are serialised once.
     */
    json(state: ResponseState, itemsJson: readonly string[]): string {
      settingsJson ??= JSON.stringify(settings).slice(1, -1);
      const { completed_at, error, incomplete_details, usage } = changing(state);
      return `${head}${state.status}","completed_at":${completed_at},"error":${JSON.stringify(error)},"incomplete_details":${JSON.stringify(incomplete_details)},"usage":${JSON.stringify(usage)},${settingsJson},"output":[${itemsJson.join(',')}]}`;
    },
  };
}

export type ResponseShell = ReturnType<typeof createResponseShell>;
