import * as z from 'zod';
import { tokenLogprobSchema } from '@quantum-chat/core/schemas';

/**
 * The placeholder an expected JSON body may hold where any non-empty string is right.
 * Used for error `message`s: status, type, code and param are compared exactly.
 */
export const anyString = '<any>';

/** The placeholder `"<contains:TEXT>"`: any string holding TEXT (an error message that must name what it refuses). */
export const containingPlaceholder = /^<contains:(.+)>$/;

const headerName = z.string().regex(/^[a-z0-9-]+$/, 'header names are written in lower case');

/** A request as a case stores it: the runner sends exactly these bytes. */
const caseRequestSchema = z
  .strictObject({
    method: z.string().regex(/^[A-Z]+$/),
    /** Relative to the host's base URL (which ends with the mount path, `/v1`); may hold `{{name}}`s saved by earlier steps. */
    path: z.string().startsWith('/'),
    headers: z.record(headerName, z.string()).default({}),
    /** A JSON body, sent as its `JSON.stringify` bytes. */
    body: z.unknown().optional(),
    /** A raw body, sent as its UTF-8 bytes (malformed JSON, `__proto__` keys, deep nesting). */
    bodyText: z.string().optional(),
    /** Raw bytes, for bodies that are not valid UTF-8. */
    bodyBase64: z.base64().optional(),
    /**
     * Pad the body with JSON whitespace (spaces after it) to exactly this many bytes: large
     * bodies without a large file.
     */
    padToBytes: z.number().int().positive().optional(),
    /** Sign the body bytes as `x-service-signature` with the core's `signRequestBody`. */
    sign: z.strictObject({ secret: z.string().min(1), timestampSeconds: z.number().int().nonnegative() }).optional(),
  })
  .refine((request) => [request.body, request.bodyText, request.bodyBase64].filter((part) => part !== undefined).length <= 1, {
    message: 'give at most one of body, bodyText and bodyBase64',
  });
export type CaseRequestFile = z.infer<typeof caseRequestSchema>;

const expectSchema = z.strictObject({
  status: z.number().int().min(100).max(599),
  /** Exact values; `null` means the header must be absent. */
  headers: z.record(headerName, z.string().nullable()),
});

/** A name a step saves a value of its answer under, used later as `{{name}}`. */
export const savedNamePattern = /^[a-z][a-zA-Z0-9]*$/;

/**
 * A request sent before the case's own, on the same host (so on the same handler and its
 * stores): what makes a response to read, delete or continue. Its status and listed headers
 * are checked; `save` keeps values of its JSON answer (by dotted path: `id`,
 * `output.0.call_id`; of a stream, its last event's JSON) for the `{{name}}`s of later requests.
 */
const stepSchema = z.strictObject({
  request: caseRequestSchema,
  expect: z.strictObject({ status: expectSchema.shape.status, headers: expectSchema.shape.headers.default({}) }),
  save: z.record(z.string().regex(savedNamePattern), z.string().regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/)).optional(),
});
export type CaseStepFile = z.infer<typeof stepSchema>;

/** `<area>/<stem>.case.json`: one request to a host (after its `before` steps, if any) and what must come back. */
export const caseFileSchema = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9-]+\/[a-z0-9-]+$/),
    covers: z.array(z.string()).min(1),
    description: z.string().min(1),
    /** Requests sent first, in order, on the same host: a case about state (read, delete, continue). */
    before: z.array(stepSchema).min(1).optional(),
    request: caseRequestSchema,
    /** Handler options of this case, on top of the runner's deterministic ones. */
    handler: z
      .strictObject({
        streamFormat: z.enum(['quantum', 'openai']).optional(),
        maxBodyBytes: z.number().int().positive().optional(),
        signingSecrets: z.array(z.string().min(1)).optional(),
        signatureToleranceSeconds: z.number().int().nonnegative().optional(),
        keepAliveIntervalMs: z.number().int().nonnegative().optional(),
      })
      .default({}),
    expect: expectSchema,
  })
  .refine((file) => 'x-request-id' in file.expect.headers && 'content-type' in file.expect.headers, {
    message: 'every case asserts content-type and x-request-id',
  });
export type CaseFile = z.infer<typeof caseFileSchema>;

const count = z.number().int().nonnegative();
const usageSchema = z.strictObject({
  promptTokens: count,
  completionTokens: count,
  reasoningTokens: count,
  cachedPromptTokens: count.optional(),
  promptAudioTokens: count.optional(),
  acceptedPredictionTokens: count.optional(),
  rejectedPredictionTokens: count.optional(),
  completionAudioTokens: count.optional(),
});

/**
 * One line of `<stem>.engine.jsonl`: exactly a `ChatEngineEvent`, plus `error`, which means
 * "throw a QuantumChatError with this code here", and `hold`, which means "stay silent until
 * the client has seen the first bytes of the response", and `next-call`, which starts the script
 * of the engine's next call.
 */
export const replayEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('reasoning'), text: z.string() }),
  z.strictObject({ type: z.literal('content'), text: z.string(), logprobs: z.array(tokenLogprobSchema).optional() }),
  z.strictObject({ type: z.literal('tool-call'), index: z.number().int().nonnegative(), name: z.string().optional(), argumentsDelta: z.string() }),
  z.strictObject({ type: z.literal('finish'), reason: z.enum(['stop', 'length', 'tool_calls']), usage: usageSchema, systemFingerprint: z.string().min(1).optional() }),
  z.strictObject({ type: z.literal('error'), code: z.string(), message: z.string().min(1) }),
  /** Not an event: the engine stays silent here until the client has seen the response's first bytes. */
  z.strictObject({ type: z.literal('hold') }),
  /** Not an event: what follows is the script of the engine's next call (a case whose steps run the engine more than once). */
  z.strictObject({ type: z.literal('next-call') }),
]);
export type ReplayEvent = z.infer<typeof replayEventSchema>;

/** A tool call as a client rebuilds it from a stream. */
const collectedToolCallSchema = z.strictObject({
  id: z.string().optional(),
  name: z.string(),
  arguments: z.string(),
});

/** Usage as a client reports it; only the fields the fixture lists are compared. */
const collectedUsageSchema = z.strictObject({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative().optional(),
  reasoningTokens: z.number().int().nonnegative().optional(),
});

const fixtureMeta = {
  /** Requirement ids (client side) this stream exercises. */
  covers: z.array(z.string()).optional(),
  description: z.string().optional(),
};

/** `<stem>.expected.json`: what a client must rebuild from `<stem>.response.sse`. */
export const expectedCompletionSchema = z.union([
  z.strictObject({
    ...fixtureMeta,
    reasoning: z.string(),
    content: z.string(),
    toolCalls: z.array(collectedToolCallSchema),
    finishReason: z.enum(['stop', 'length', 'tool_calls']),
    usage: collectedUsageSchema.optional(),
    /** What a reader that splits a leading `<think>` block out of the content rebuilds instead. */
    thinkTags: z.strictObject({ reasoning: z.string(), content: z.string() }).optional(),
  }),
  z.strictObject({
    ...fixtureMeta,
    error: z.strictObject({
      status: z.number().int().optional(),
      code: z.string().optional(),
      type: z.string().optional(),
      /** The server's message, which the reader must surface. */
      message: z.string().optional(),
    }),
  }),
]);
export type ExpectedCompletion = z.infer<typeof expectedCompletionSchema>;
