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
  const tools = echoTools(request);
  const text: ResponseObject['text'] = request.verbosity === undefined ? { format: request.textFormat } : { format: request.textFormat, verbosity: request.verbosity };
  return {
    identity,
    build(state: ResponseState): ResponseObject {
      const response: ResponseObject = {
        id: identity.id,
        object: 'response',
        created_at: identity.createdAt,
        status: state.status,
        background: request.background,
        completed_at: state.completedAt ?? null,
        error: state.error ?? null,
        incomplete_details: state.incompleteReason === undefined ? null : { reason: state.incompleteReason },
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
        tools,
        top_p: request.topP ?? 1,
        truncation: 'disabled',
        usage: state.usage,
        user: request.user ?? null,
        metadata: request.metadata,
        // Last, so that the stream encoder can append the items' JSON it already wrote (`withOutputJson`).
        output: state.output,
      };
      if (request.logprobs !== undefined) {
        const { output, ...settings } = response;
        return { ...settings, top_logprobs: request.logprobs.topLogprobs, output };
      }
      return response;
    },
  };
}

export type ResponseShell = ReturnType<typeof createResponseShell>;

/**
 * The JSON of a response whose output items are already JSON: the stream encoder wrote each
 * item whole in its `output_item.done` event, and the final response repeats them, so they are
 * not serialised twice. `output` is the last key `build` writes.
 */
export function responseJsonWithOutput(response: ResponseObject, itemsJson: readonly string[]): string {
  const empty = JSON.stringify(response.output.length === 0 ? response : { ...response, output: [] });
  return `${empty.slice(0, -2)}${itemsJson.join(',')}]}`;
}
