import * as z from 'zod';
import { chatCompletionChunkSchema } from './chat-completion-chunk.js';

/**
 * The data of a `thought_trace` event: the spec's `delta` string (2.10) plus the standard
 * chunk envelope with `delta.reasoning_content` (decisions §4), so both kinds of client read it.
 */
export const thoughtTraceChunkSchema = chatCompletionChunkSchema.extend({ delta: z.string() });
export type ThoughtTraceChunk = z.infer<typeof thoughtTraceChunkSchema>;
