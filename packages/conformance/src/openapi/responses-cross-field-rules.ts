import type { RefusalError } from './openapi-properties.js';

/**
 * A generated create-response body mended to the rules the schema cannot say (decisions §10):
 * a model this server has, no reference to a stored response (nothing is stored yet), message
 * input items only (a function_call_output must answer an earlier call), a background response
 * stored, and a tool choice that needs no particular tool.
 */
export function followResponsesCrossFieldRules(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const mended: Record<string, unknown> = { ...body, model: 'quantum-flash' };
  delete mended.previous_response_id;
  delete mended.top_logprobs;
  const input = Array.isArray(mended.input) ? mended.input.filter((item) => typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'message' && (item as { role?: unknown }).role !== 'assistant') : mended.input;
  mended.input = typeof input === 'string' || (Array.isArray(input) && input.length > 0) ? input : 'Hi';
  if (mended.background === true) mended.store = true;
  if (mended.tool_choice !== undefined && mended.tool_choice !== null) mended.tool_choice = 'auto';
  return mended;
}

/** The refusals the Responses routes' descriptions give (decisions §10). */
export function responsesRefusalOf(template: string, status: number, error: RefusalError | undefined): string | undefined {
  if (!template.startsWith('/responses') || error === undefined) return undefined;
  if (status === 404 && error.code === 'response_not_found') return 'a response id nobody created';
  if (status === 400 && error.param === 'stream') return 'a response with no stream to replay';
  if (status === 400 && error.param === 'response_id') return 'cancelling a response not made in the background';
  if (status === 400 && error.param === 'input') return 'input is required without previous_response_id, and a conversation needs a message';
  if (status === 400 && /^input\[\d+\]\.call_id$/.test(error.param ?? '')) return 'a function_call_output answers an earlier function_call';
  if (status === 400 && error.param === 'tool_choice') return 'tool_choice names a tool in tools, and "required" needs tools';
  if (status === 400 && error.param === 'top_logprobs') return 'top_logprobs needs the logprobs include';
  if (status === 400 && error.param === 'background') return 'background needs store';
  if (status === 400 && error.code === 'invalid_tool_schema') return 'a tool schema the JSON Schema rules refuse';
  if (status === 400 && /^tools\[\d+\]\.name$/.test(error.param ?? '')) return 'tool names are unique';
  if (status === 400 && error.param === 'text.format.schema') return 'a text.format schema the JSON Schema rules refuse';
  return undefined;
}
