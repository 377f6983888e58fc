import * as z from 'zod';

/** A complete tool call in an assistant message (spec 2.8). `arguments` is a JSON string. */
export const toolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

/** A fragment of a tool call in a stream chunk: the first carries id and name. */
export const toolCallDeltaSchema = z.looseObject({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  type: z.literal('function').nullish(),
  function: z
    .looseObject({
      name: z.string().nullish(),
      // Some runtimes send the arguments as an object instead of a JSON string.
      arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
    })
    .nullish(),
});
export type ToolCallDelta = z.infer<typeof toolCallDeltaSchema>;
