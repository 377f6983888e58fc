import type { EchoedFunctionTool, ResponseObject, ResponseOutputItem, ResponseStatus, ResponseUsage } from '../../schemas/responses/response-object.js';
import type { ValidatedResponseRequest } from '../../request/responses/validate-create-response.js';
import { outputItemJson, responseSettingsJson, responseUsageJson, type ResponseSettings } from '../../wire/responses/response-body-json.js';

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
  const settings: ResponseSettings = {
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

  /**
   * `JSON.stringify(build(state))` with the output items given as JSON: the stream encoder wrote
   * each item whole in its `output_item.done` event and the final response repeats them, and
   * the settings, the same in every response of a stream, are serialised once.
   */
  function json(state: ResponseState, itemsJson: readonly string[]): string {
    settingsJson ??= responseSettingsJson(settings);
    const error = state.error === undefined ? 'null' : JSON.stringify(state.error);
    const incomplete = state.incompleteReason === undefined ? 'null' : `{"reason":"${state.incompleteReason}"}`;
    return `${head}${state.status}","completed_at":${state.completedAt ?? null},"error":${error},"incomplete_details":${incomplete},"usage":${responseUsageJson(state.usage)},${settingsJson},"output":[${itemsJson.join(',')}]}`;
  }

  return {
    identity,
    build(state: ResponseState): ResponseObject {
      return { id: identity.id, object: 'response', created_at: identity.createdAt, status: state.status, ...changing(state), ...settings, output: state.output };
    },
    json,
    /** `JSON.stringify(build(state))`, the items written as templates too: a JSON answer's body, with no `Response` object built for it. */
    body(state: ResponseState): string {
      return json(state, state.output.map(outputItemJson));
    },
  };
}

export type ResponseShell = ReturnType<typeof createResponseShell>;
