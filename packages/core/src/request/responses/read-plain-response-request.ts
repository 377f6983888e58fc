import { maxTokensCeiling, maxTopLogprobs } from '../../schemas/chat-completion-request.js';
import type { CreateResponseRequest } from '../../schemas/responses/create-response-request.js';
import { inputMessageRoles, type InputItem, type InputMessageRole, type MessageItem } from '../../schemas/responses/input-item.js';

/** The top-level fields of a create-response request without its lists (`input`, `tools`), as the schema returns them. */
export type ResponseRequestFields = Omit<CreateResponseRequest, 'input' | 'tools'>;

const isBoolean = (value: unknown) => typeof value === 'boolean';
const isString = (value: unknown) => typeof value === 'string';
const isShortString = (value: unknown) => typeof value === 'string' && value.length <= 256;

/**
 * The scalar fields nearly every create-response request sends, each checked exactly as the
 * request schema checks it. Objects (`text`, `reasoning`, `metadata`, `include`, a function
 * `tool_choice`) are not here: they take the schema.
 */
const scalarChecks: ReadonlyMap<string, (value: unknown) => boolean> = new Map(
  Object.entries({
    model: isString,
    instructions: isString,
    tool_choice: (value) => value === 'none' || value === 'auto' || value === 'required',
    parallel_tool_calls: isBoolean,
    max_output_tokens: (value) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= maxTokensCeiling,
    temperature: (value) => typeof value === 'number' && value >= 0 && value <= 2,
    top_p: (value) => typeof value === 'number' && value >= 0 && value <= 1,
    top_logprobs: (value) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= maxTopLogprobs,
    stream: isBoolean,
    store: isBoolean,
    background: isBoolean,
    previous_response_id: (value) => typeof value === 'string' && value.length >= 1 && value.length <= 256,
    user: isShortString,
  }),
);

/**
 * The request's top-level fields (lists apart, `null`s dropped) when they are all scalars that
 * pass their checks, read without zod; `undefined` for anything else, which the schema then
 * parses (and so words every error). Why: the schema parse was a tenth of a Responses request's CPU time.
 */
export function readPlainResponseFields(fields: Record<string, unknown>): ResponseRequestFields | undefined {
  for (const key in fields) {
    const check = scalarChecks.get(key);
    if (check === undefined || !check(fields[key])) return undefined;
  }
  return fields as ResponseRequestFields;
}

const roles: ReadonlySet<unknown> = new Set(inputMessageRoles);

/** `[{type: "input_text" | "output_text", text}]`, each part those two keys alone: what SDKs send. */
function isPlainPartList(content: unknown): boolean {
  if (!Array.isArray(content)) return false;
  for (const part of content as unknown[]) {
    if (typeof part !== 'object' || part === null || Object.getPrototypeOf(part) !== Object.prototype) return false;
    let keys = 0;
    for (const _key in part) keys++;
    const { type, text } = part as { type?: unknown; text?: unknown };
    if (keys !== 2 || (type !== 'input_text' && type !== 'output_text') || typeof text !== 'string') return false;
  }
  return true;
}

/**
 * A message item as most clients send it, `{type?: "message", role, content, id?, status?}`
 * with string content or plain text parts, read without zod: the value the item schema gives
 * (with `type` set), or `undefined` for anything else, which then takes the schema. Why: one
 * schema parse per item was most of the rest of the validation's time.
 */
export function readPlainMessageItem(item: Record<string, unknown>): InputItem | undefined {
  const { type, id, role, content, status } = item;
  // No key but these five: counted, not looked up one by one.
  let keys = 0;
  for (const _key in item) keys++;
  if (keys !== 2 + Number(type !== undefined) + Number(id !== undefined) + Number(status !== undefined)) return undefined;
  if (type !== undefined && type !== 'message') return undefined;
  if (!roles.has(role)) return undefined;
  if (typeof content !== 'string' && !isPlainPartList(content)) return undefined;
  if (id !== undefined && !isShortString(id)) return undefined;
  if (status !== undefined && typeof status !== 'string') return undefined;
  return newMessageItem(role as InputMessageRole, content as MessageItem['content'], id as string | undefined, status as string | undefined);
}

/** The item built field by field: spreading an object `JSON.parse` made took ten times as long as the checks. */
function newMessageItem(role: InputMessageRole, content: MessageItem['content'], id: string | undefined, status: string | undefined): InputItem {
  const value: InputItem = { type: 'message', role, content };
  if (id !== undefined) value.id = id;
  if (status !== undefined) value.status = status;
  return value;
}
