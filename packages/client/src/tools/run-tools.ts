import type { AssistantResponseMessage, ChatCompletion, Message, ToolChoice, Usage } from '@quantum-chat/core';
import type { ChatCompletionCreateParams } from '../chat-request.js';
import type { ChatClient } from '../create-chat-client.js';
import { APIResponseValidationError, APIUserAbortError } from '../errors/connection-errors.js';
import { executeToolCall, type ToolResult } from './execute-tool-call.js';
import type { RunnerTool } from './runner-tool.js';
import { toToolDefinition } from './to-tool-definition.js';

/** Options of {@link runTools}. */
export interface RunToolsOptions {
  client: ChatClient;
  model: string;
  messages: readonly Message[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tool typed for its own arguments must fit here, whatever they are
  tools: ReadonlyArray<RunnerTool<any>>;
  /** Completions at most, each maybe followed by tool runs. Default 10. */
  maxSteps?: number;
  /**
   * The `tool_choice` of the first completion; later ones use `auto`, so that `required` or a
   * named tool cannot make a real model call tools forever. Default `auto`.
   */
  toolChoice?: ToolChoice;
  /** Aborts the pending completion and is handed to running tools; `runTools` then rejects with `APIUserAbortError`. */
  signal?: AbortSignal;
  /** More request fields for every completion (`temperature`, `max_tokens`, `seed`…). */
  request?: Omit<Partial<ChatCompletionCreateParams>, 'model' | 'messages' | 'tools' | 'tool_choice'>;
  /** Called after each step, for progress display or logging. */
  onStep?: (step: RunToolsStep) => void;
}

/** One completion and the tool calls it asked for. */
export interface RunToolsStep {
  completion: ChatCompletion;
  toolResults: ToolResult[];
}

/** What {@link runTools} resolves to. */
export interface RunToolsResult {
  /** The whole conversation: the input, then each assistant message and its `tool` messages. */
  messages: Message[];
  /** The last assistant message: the answer, or (at the step limit) a message with `tool_calls`. */
  finalMessage: AssistantResponseMessage;
  steps: RunToolsStep[];
  /** `answer` when the model answered; `step-limit` when `maxSteps` completions still asked for tools. */
  endedBy: 'answer' | 'step-limit';
  /** Token counts summed over every completion. */
  usage: Usage;
}

const defaultMaxSteps = 10;

/**
 * Runs the tool loop: completion → run the tools the model chose (in parallel when it chose
 * several) → append the assistant message and one `tool` message per call → again, until the
 * model answers without calling a tool or `maxSteps` completions were made. Bad arguments and
 * tool errors go back to the model as `{"error": "…"}` results, never as a rejection.
 *
 * @example
 * const { finalMessage } = await runTools({
 *   client, model: 'quantum-flash',
 *   messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
 *   tools: [defineTool({ name: 'get_weather', parameters: z.object({ city: z.string() }), run: ({ city }) => ({ city, celsius: 21 }) })],
 * });
 */
export async function runTools(options: RunToolsOptions): Promise<RunToolsResult> {
  const maxSteps = options.maxSteps ?? defaultMaxSteps;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new RangeError(`maxSteps must be a positive integer, got ${maxSteps}.`);
  const toolsByName = new Map<string, RunnerTool>();
  for (const tool of options.tools) {
    if (toolsByName.has(tool.name)) throw new TypeError(`Two tools are named '${tool.name}'.`);
    toolsByName.set(tool.name, tool);
  }
  const definitions = options.tools.map(toToolDefinition);
  const messages: Message[] = [...options.messages];
  const steps: RunToolsStep[] = [];
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

  for (let stepNumber = 0; ; stepNumber++) {
    if (options.signal?.aborted) throw new APIUserAbortError(undefined, { cause: options.signal.reason });
    const toolChoice = stepNumber === 0 ? options.toolChoice : undefined;
    const completion = await options.client.chat.completions.create(
      {
        ...options.request,
        model: options.model,
        messages,
        ...(definitions.length > 0 ? { tools: definitions } : {}),
        ...(toolChoice !== undefined && definitions.length > 0 ? { tool_choice: toolChoice } : {}),
      },
      { signal: options.signal },
    );
    addUsage(usage, completion.usage);
    const message = completion.choices[0]?.message;
    if (message === undefined) throw new APIResponseValidationError('The completion has no choices.', { body: completion });
    const toolCalls = message.tool_calls ?? [];
    if (toolCalls.length === 0) {
      messages.push({ role: 'assistant', content: message.content ?? '' });
      const step = { completion, toolResults: [] };
      steps.push(step);
      options.onStep?.(step);
      return { messages, finalMessage: message, steps, endedBy: 'answer', usage };
    }
    // The assistant turn goes back without its reasoning: some servers (DeepSeek) refuse it as input.
    messages.push({ role: 'assistant', content: message.content ?? null, tool_calls: toolCalls });
    const context = { signal: options.signal, messages: [...messages] };
    const toolResults = await Promise.all(toolCalls.map((call) => executeToolCall(call, toolsByName, context)));
    for (const result of toolResults) messages.push({ role: 'tool', tool_call_id: result.toolCallId, content: result.content });
    const step = { completion, toolResults };
    steps.push(step);
    options.onStep?.(step);
    if (stepNumber + 1 >= maxSteps) return { messages, finalMessage: message, steps, endedBy: 'step-limit', usage };
  }
}

function addUsage(total: Usage, usage: Usage | undefined): void {
  if (usage === undefined || usage === null) return;
  total.prompt_tokens += usage.prompt_tokens ?? 0;
  total.completion_tokens += usage.completion_tokens ?? 0;
  total.total_tokens += usage.total_tokens ?? 0;
}
