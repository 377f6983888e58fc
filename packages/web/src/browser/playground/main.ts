// The playground page: settings on the left, the conversation on the right. Requests go to
// the API of the same server through @quantum-chat/client (bundled into this script).
import { createChatClient, type ChatCompletionCreateParams, type ToolCall } from '@quantum-chat/client';
import { apiBaseUrl, byId } from '../dom.js';
import { createAssistantTurn } from './assistant-turn.js';
import { createConversation } from './conversation.js';
import { createModelPicker } from './model-picker.js';
import { exampleTools, parseToolDefinitions } from './parse-tools.js';
import { runTurn } from './run-turn.js';

const keyStorage = 'quantum-chat.playground.api-key';

const apiKey = byId<HTMLInputElement>('api-key');
const model = byId<HTMLSelectElement>('model');
const temperature = byId<HTMLInputElement>('temperature');
const maxTokens = byId<HTMLInputElement>('max-tokens');
const stream = byId<HTMLInputElement>('stream');
const tools = byId<HTMLTextAreaElement>('tools');
const toolChoice = byId<HTMLSelectElement>('tool-choice');
const toolsError = byId('tools-error');
const composer = byId<HTMLFormElement>('composer');
const role = byId<HTMLSelectElement>('role');
const message = byId<HTMLTextAreaElement>('message');
const sendButton = byId<HTMLButtonElement>('send');
const stopButton = byId<HTMLButtonElement>('stop');
const composerNote = byId('composer-note');

const conversation = createConversation(byId('transcript'));
const modelPicker = createModelPicker(model, byId('model-note'));
let running: AbortController | undefined;

// The playground shows every failure as it is: no silent retries.
const client = () => createChatClient({ baseUrl: apiBaseUrl(), apiKey: apiKey.value.trim() || undefined, maxRetries: 0 });

/** A number field as sent: empty or not a number leaves the field out (the server's default applies). */
function numberField(input: HTMLInputElement): number | undefined {
  const value = input.valueAsNumber;
  return Number.isFinite(value) ? value : undefined;
}

/** The request for the conversation so far, or undefined when the tool definitions do not parse. */
function buildRequest(): ChatCompletionCreateParams | undefined {
  const parsed = parseToolDefinitions(tools.value);
  toolsError.hidden = parsed.ok;
  if (!parsed.ok) {
    toolsError.textContent = parsed.message;
    return undefined;
  }
  const request: ChatCompletionCreateParams = { model: model.value, messages: [...conversation.messages] };
  const temperatureValue = numberField(temperature);
  const maxTokensValue = numberField(maxTokens);
  if (temperatureValue !== undefined) request.temperature = temperatureValue;
  if (maxTokensValue !== undefined) request.max_tokens = maxTokensValue;
  if (parsed.tools) {
    request.tools = parsed.tools;
    request.tool_choice = toolChoice.value as 'auto' | 'required' | 'none';
  }
  return request;
}

function updateComposer(): void {
  const waiting = conversation.pendingToolCalls > 0;
  sendButton.disabled = running !== undefined || waiting;
  stopButton.disabled = running === undefined;
  composerNote.textContent = waiting ? 'Send a result for each tool call above to continue.' : '';
}

function onToolResult(call: ToolCall, result: string): void {
  conversation.addToolResult(call, result);
  if (conversation.pendingToolCalls === 0) void run();
  else updateComposer();
}

async function run(): Promise<void> {
  const request = buildRequest();
  if (request === undefined || running !== undefined) return;
  const controller = new AbortController();
  running = controller;
  updateComposer();
  const turn = createAssistantTurn(request.model);
  conversation.show(turn.element);
  const outcome = await runTurn(client(), request, stream.checked, turn, () => void run(), controller.signal);
  running = undefined;
  if (outcome.kind === 'answer') {
    conversation.addAnswer(outcome.content, outcome.toolCalls);
    if (outcome.toolCalls.length > 0) turn.showToolCalls(outcome.toolCalls, onToolResult);
  }
  updateComposer();
}

composer.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = message.value.trim();
  if (text === '' || running !== undefined || conversation.pendingToolCalls > 0) return;
  // Check the tools before the message joins the conversation.
  if (!parseToolDefinitions(tools.value).ok) {
    buildRequest();
    return;
  }
  conversation.addMessage(role.value === 'system' ? 'system' : 'user', text);
  message.value = '';
  role.value = 'user';
  void run();
});

message.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    composer.requestSubmit();
  }
});
stopButton.addEventListener('click', () => running?.abort());
byId('clear').addEventListener('click', () => {
  running?.abort();
  conversation.clear();
  updateComposer();
});
byId('tools-example').addEventListener('click', () => {
  tools.value = exampleTools;
  toolsError.hidden = true;
});
tools.addEventListener('change', () => void buildRequest());

apiKey.value = sessionStorage.getItem(keyStorage) ?? '';
apiKey.addEventListener('change', () => {
  sessionStorage.setItem(keyStorage, apiKey.value.trim());
  void modelPicker.refresh(client());
});
void modelPicker.refresh(client());
updateComposer();
