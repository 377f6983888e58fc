import type { RefusalError } from './openapi-properties.js';

type Body = Record<string, unknown>;

interface CrossFieldRule {
  rule: string;
  /** Whether a 400 is this rule's refusal. */
  refuses(error: RefusalError): boolean;
  /** The body changed so that it keeps to the rule (the same object when it already does). */
  follow(body: Body): Body;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const toolNames = (body: Body) => asArray(body.tools).map((tool) => (isObject(tool) && isObject(tool.function) ? tool.function.name : undefined));

/**
 * The chat request's rules across fields, and inside a field's JSON Schema, that JSON Schema
 * cannot state: the document gives them in its descriptions (decisions §2), so a request
 * generated from its schemas may break them and be refused for it. Each rule recognises its
 * refusal, and where it can, mends a body to keep to it, so most generated requests reach the
 * engine.
 */
export const chatCrossFieldRules: CrossFieldRule[] = [
  {
    rule: 'a tool message answers a tool call of an earlier assistant message',
    refuses: (error) => /^messages\[\d+\]\.tool_call_id$/u.test(error.param ?? ''),
    follow(body) {
      const callIds: string[] = [];
      const messages = asArray(body.messages).map((message) => {
        if (!isObject(message)) return message;
        if (message.role === 'assistant') for (const call of asArray(message.tool_calls)) if (isObject(call) && typeof call.id === 'string') callIds.push(call.id);
        if (message.role !== 'tool' || callIds.includes(message.tool_call_id as string)) return message;
        // No call to answer yet: the same words from the user.
        return callIds.length > 0 ? { ...message, tool_call_id: callIds[0] } : { role: 'user', content: message.content };
      });
      return { ...body, messages };
    },
  },
  {
    rule: 'tool_choice names a tool in tools, and "required" needs tools',
    refuses: (error) => error.param === 'tool_choice' || /^tool_choice\./u.test(error.param ?? ''),
    follow(body) {
      const names = toolNames(body);
      const choice = body.tool_choice;
      if (isObject(choice) && isObject(choice.function) && !names.includes(choice.function.name)) {
        return names.length > 0 ? { ...body, tool_choice: { ...choice, function: { ...choice.function, name: names[0] } } } : { ...body, tool_choice: 'auto' };
      }
      return choice === 'required' && names.length === 0 ? { ...body, tool_choice: 'auto' } : body;
    },
  },
  {
    rule: 'tool names are unique',
    refuses: (error) => /^tools\[\d+\]\.function\.name$/u.test(error.param ?? '') && /used twice/u.test(error.message),
    follow(body) {
      const seen = new Set<unknown>();
      const tools = asArray(body.tools).map((tool, index) => {
        if (!isObject(tool) || !isObject(tool.function)) return tool;
        const name = tool.function.name;
        const unique = seen.has(name) ? `${String(name).slice(0, 56)}_${index}` : name;
        seen.add(unique);
        return unique === name ? tool : { ...tool, function: { ...tool.function, name: unique } };
      });
      return Array.isArray(body.tools) ? { ...body, tools } : body;
    },
  },
  {
    rule: 'max_tokens and max_completion_tokens agree',
    refuses: (error) => error.param === 'max_completion_tokens' && /differs/u.test(error.message),
    follow: (body) => (typeof body.max_tokens === 'number' && typeof body.max_completion_tokens === 'number' ? { ...body, max_completion_tokens: body.max_tokens } : body),
  },
  {
    rule: 'stream_options.resumable needs stream: true',
    refuses: (error) => error.param === 'stream_options.resumable',
    follow(body) {
      const options = body.stream_options;
      if (!isObject(options) || options.resumable !== true || body.stream === true) return body;
      const { resumable: _resumable, ...rest } = options;
      return { ...body, stream_options: rest };
    },
  },
  {
    rule: "a tool's parameters is a valid JSON Schema",
    refuses: (error) => error.code === 'invalid_tool_schema',
    follow: (body) => body,
  },
  {
    rule: 'a json_schema response format holds a valid JSON Schema',
    refuses: (error) => error.param === 'response_format.json_schema.schema',
    follow: (body) => body,
  },
];

/**
 * A generated chat request mended to keep to the rules the document states only in words.
 *
 * @example
 * followChatCrossFieldRules({ model: 'quantum-lite', messages: [{ role: 'tool', tool_call_id: 'x', content: 'hi' }] });
 * // { model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }] }
 */
export function followChatCrossFieldRules(body: Body): Body {
  return chatCrossFieldRules.reduce((mended, rule) => rule.follow(mended), body);
}

/** The rule a 400 refusal of a schema-valid chat request is explained by, if any. */
export function crossFieldRuleOf(error: RefusalError): string | undefined {
  return chatCrossFieldRules.find((rule) => rule.refuses(error))?.rule;
}

/**
 * Why a schema-valid request to a resumable stream's routes (decisions §4.7) was refused, if
 * the refusal is one the document gives in words: a generated id names no stream, or the two
 * ways of saying where to resume disagree.
 */
export function streamRouteRefusalOf(template: string, status: number, error: RefusalError | undefined): string | undefined {
  if (!template.startsWith('/chat/completions/{id}') || error === undefined) return undefined;
  if (status === 404 && error.code === 'stream_not_found') return 'a stream id that names no stream';
  if (status === 400 && error.param === 'starting_after') return 'Last-Event-ID and starting_after disagree';
  return undefined;
}
