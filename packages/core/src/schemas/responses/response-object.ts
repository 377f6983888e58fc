import type { ResponseToolChoice } from './response-tool.js';
import type { ResponseTextFormat } from './response-text-format.js';

/** A token's log probability in an `output_text` part, as the Responses API writes it. */
export interface ResponseLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
  top_logprobs: { token: string; logprob: number; bytes: number[] | null }[];
}

export interface OutputTextPart {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: ResponseLogprob[];
}

export interface OutputMessageItem {
  type: 'message';
  id: string;
  status: ResponseItemStatus;
  role: 'assistant';
  content: OutputTextPart[];
}

/** The model's trace, as a one-part summary: the form both the AI SDK and the `openai` SDK read (decisions §10). */
export interface OutputReasoningItem {
  type: 'reasoning';
  id: string;
  summary: { type: 'summary_text'; text: string }[];
  status?: ResponseItemStatus;
  encrypted_content?: string | null;
}

export interface OutputFunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ResponseItemStatus;
}

export type ResponseItemStatus = 'in_progress' | 'completed' | 'incomplete';
export type ResponseOutputItem = OutputMessageItem | OutputReasoningItem | OutputFunctionCallItem;

export type ResponseStatus = 'completed' | 'incomplete' | 'in_progress' | 'queued' | 'cancelled' | 'failed';

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** The function tool as echoed: every field present, as OpenAI writes it. */
export interface EchoedFunctionTool {
  type: 'function';
  name: string;
  description: string | null;
  parameters: Record<string, unknown> | null;
  strict: boolean | null;
}

/** The `Response` object (decisions §10): the answer and the request's settings, echoed. */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  /** When a response ended (completed, incomplete, failed, cancelled): seconds since the epoch. */
  completed_at: number | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: ResponseOutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: { effort: 'low' | 'medium' | 'high' | null; summary: 'auto' | 'concise' | 'detailed' | null };
  store: boolean;
  temperature: number;
  text: { format: ResponseTextFormat; verbosity?: 'low' | 'medium' | 'high' };
  tool_choice: ResponseToolChoice;
  tools: EchoedFunctionTool[];
  top_p: number;
  top_logprobs?: number;
  background: boolean;
  truncation: 'disabled';
  usage: ResponseUsage | null;
  user: string | null;
  metadata: Record<string, string>;
}
