import type { ResponseObject, ResponseOutputItem, ResponseUsage } from '../../schemas/responses/response-object.js';

/**
 * A `Response` body's parts as JSON, each byte for byte what `JSON.stringify` gives for the
 * same value (key order included), written as templates: only the strings and numbers that
 * vary are serialised. Why: serialising the whole `Response` (the request's settings echoed)
 * was a seventh of a Responses JSON request's CPU, more than all the rest of its answer.
 */

/** The request's settings a `Response` echoes, in the order the shell writes them: all but its identity, state and output. */
export type ResponseSettings = Omit<ResponseObject, 'id' | 'object' | 'created_at' | 'status' | 'completed_at' | 'error' | 'incomplete_details' | 'usage' | 'output'>;

/** A number as `JSON.stringify` writes it (`null` for NaN and the infinities, which JSON lacks). */
function numberJson(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

function isEmptyObject(value: object): boolean {
  for (const _key in value) return false;
  return true;
}

/** `null` or one of a fixed set of names (no character to escape). */
function nameOrNull(value: string | null): string {
  return value === null ? 'null' : `"${value}"`;
}

/** `JSON.stringify(settings)` without its braces: the settings of most requests are constants around a few strings. */
export function responseSettingsJson(settings: ResponseSettings): string {
  const { text, tool_choice: toolChoice, tools, metadata, reasoning } = settings;
  const textJson = text.verbosity === undefined && text.format.type === 'text' ? '{"format":{"type":"text"}}' : JSON.stringify(text);
  return (
    `"background":${settings.background},"instructions":${JSON.stringify(settings.instructions)},` +
    `"max_output_tokens":${settings.max_output_tokens === null ? 'null' : numberJson(settings.max_output_tokens)},"model":${JSON.stringify(settings.model)},` +
    `"parallel_tool_calls":${settings.parallel_tool_calls},"previous_response_id":${JSON.stringify(settings.previous_response_id)},` +
    `"reasoning":{"effort":${nameOrNull(reasoning.effort)},"summary":${nameOrNull(reasoning.summary)}},"store":${settings.store},` +
    `"temperature":${numberJson(settings.temperature)},"text":${textJson},"tool_choice":${typeof toolChoice === 'string' ? `"${toolChoice}"` : JSON.stringify(toolChoice)},` +
    `"tools":${tools.length === 0 ? '[]' : JSON.stringify(tools)},"top_p":${numberJson(settings.top_p)},"truncation":"disabled",` +
    `"user":${JSON.stringify(settings.user)},"metadata":${isEmptyObject(metadata) ? '{}' : JSON.stringify(metadata)}` +
    (settings.top_logprobs === undefined ? '' : `,"top_logprobs":${numberJson(settings.top_logprobs)}`)
  );
}

/** `JSON.stringify(usage)` of the usage `toResponseUsage` builds. */
export function responseUsageJson(usage: ResponseUsage | null): string {
  if (usage === null) return 'null';
  return (
    `{"input_tokens":${numberJson(usage.input_tokens)},"input_tokens_details":{"cached_tokens":${numberJson(usage.input_tokens_details.cached_tokens)}},` +
    `"output_tokens":${numberJson(usage.output_tokens)},"output_tokens_details":{"reasoning_tokens":${numberJson(usage.output_tokens_details.reasoning_tokens)}},` +
    `"total_tokens":${numberJson(usage.total_tokens)}}`
  );
}

/** `JSON.stringify(item)` of an output item as `ResponseOutput` builds and closes it. */
export function outputItemJson(item: ResponseOutputItem): string {
  if (item.type === 'message') {
    let parts = '';
    for (const part of item.content) {
      const annotations = part.annotations.length === 0 ? '[]' : JSON.stringify(part.annotations);
      const logprobs = part.logprobs.length === 0 ? '[]' : JSON.stringify(part.logprobs);
      parts += `${parts === '' ? '' : ','}{"type":"output_text","text":${JSON.stringify(part.text)},"annotations":${annotations},"logprobs":${logprobs}}`;
    }
    return `{"type":"message","id":${JSON.stringify(item.id)},"status":"${item.status}","role":"assistant","content":[${parts}]}`;
  }
  if (item.type === 'function_call') {
    return `{"type":"function_call","id":${JSON.stringify(item.id)},"call_id":${JSON.stringify(item.call_id)},"name":${JSON.stringify(item.name)},"arguments":${JSON.stringify(item.arguments)},"status":"${item.status}"}`;
  }
  // A reasoning item gets its status when it closes (after its summary), and never encrypted content of ours.
  if (item.status === undefined || item.encrypted_content !== undefined) return JSON.stringify(item);
  return `{"type":"reasoning","id":${JSON.stringify(item.id)},"summary":${JSON.stringify(item.summary)},"status":"${item.status}"}`;
}
