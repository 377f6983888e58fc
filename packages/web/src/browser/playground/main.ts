// The playground page: settings on the left, the conversation on the right. Requests go to
// the API of the same server through @quantum-chat/client (bundled into this script).
import { createChatClient, type ChatCompletionCreateParams, type ToolCall } from '@quantum-chat/client';
import { apiBaseUrl, byId } from '../dom.js';
import { createAssistantTurn } from './assistant-turn.js';
import { createConversation } from './conversation.js';
import { createModelPicker } from './model-picker.js';
import { checkNumberField, numberFieldRules } from './number-fields.js';
import { exampleTools, parseToolDefinitions } from './parse-tools.js';
import { runTurn, type PlaygroundApi } from './run-turn.js';

const keyStorage = 'quantum-chat.playground.api-key';

const apiKey = byId<HTMLInputElement>('api-key');
const model = byId<HTMLSelectElement>('model');
const temperature = byId<HTMLInputElement>('temperature');
const maxTokens = byId<HTMLInputElement>('max-tokens');
const stream = byId<HTMLInputElement>('stream');
const api = byId<HTMLSelectElement>('api');
const tools = byId<HTMLTextAreaElement>('tools');
const toolChoice = byId<HTMLSelectElement>('tool-choice');
const toolsError = byId('tools-error');
const composer = byId<HTMLFormElement>('composer');
const role = byId<HTMLSelectElement>('role');
const message = byId<HTMLTextAreaElement>('message');
const sendButton = byId<HTMLButtonElement>('send');
const stopButton = byId<HTMLButtonElement>('stop');
const composerNote = byId('composer-note');
const settingsPanel = byId('settings').closest<HTMLElement>('.settings')!;
const settingsToggle = byId<HTMLButtonElement>('settings-toggle');

const conversation = createConversation(byId('transcript'));
const modelPicker = createModelPicker(model, byId('model-note'));
let running: AbortController | undefined;

// The playground shows every failure as it is: no silent retries.
const client = () => createChatClient({ baseUrl: apiBaseUrl(), apiKey: apiKey.value.trim() || undefined, maxRetries: 0 });

/**
 * A number field checked against the API's range: its value (undefined when empty, so the
 * server's default applies), or the field is marked and its message shown, and nothing is sent.
 */
function readNumberField(input: HTMLInputElement, rules: (typeof numberFieldRules)[keyof typeof numberFieldRules]): { ok: true; value: number | undefined } | { ok: false } {
  const error = byId(`${input.id}-error`);
  // A number input reads '' for text it cannot parse: that is not "empty".
  const checked = input.validity.badInput ? ({ ok: false, message: `${rules.label} must be a number.` } as const) : checkNumberField(input.value, rules);
  error.hidden = checked.ok;
  input.setAttribute('aria-invalid', String(!checked.ok));
  if (checked.ok) return checked;
  error.textContent = checked.message;
  // On a phone the settings may be folded: show the field at fault.
  setSettingsOpen(true);
  return { ok: false };
}

/** The request for the conversation so far, or undefined when a setting is not valid (it is then flagged). */
function buildRequest(): ChatCompletionCreateParams | undefined {
  const temperatureValue = readNumberField(temperature, numberFieldRules.temperature);
  const maxTokensValue = readNumberField(maxTokens, numberFieldRules.maxTokens);
  const parsed = parseToolDefinitions(tools.value);
  toolsError.hidden = parsed.ok;
  if (!parsed.ok) toolsError.textContent = parsed.message;
  if (!parsed.ok || !temperatureValue.ok || !maxTokensValue.ok) return undefined;
  const request: ChatCompletionCreateParams = { model: model.value, messages: [...conversation.messages] };
  if (temperatureValue.value !== undefined) request.temperature = temperatureValue.value;
  if (maxTokensValue.value !== undefined) request.max_tokens = maxTokensValue.value;
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
  const outcome = await runTurn(client(), request, stream.checked, turn, () => void run(), controller.signal, api.value as PlaygroundApi);
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
  // Check the settings before the message joins the conversation.
  if (buildRequest() === undefined) return;
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
for (const input of [temperature, maxTokens]) {
  // Clear a flag as soon as the value is fixed; flag a bad one when the field is left.
  input.addEventListener('input', () => {
    if (input.getAttribute('aria-invalid') === 'true') void buildRequest();
  });
  input.addEventListener('change', () => void buildRequest());
}

/** On a phone the settings fold behind a button that names the model, so the conversation comes first. */
function setSettingsOpen(open: boolean): void {
  settingsPanel.classList.toggle('expanded', open);
  settingsToggle.setAttribute('aria-expanded', String(open));
  settingsToggle.textContent = `Settings · ${model.value}${apiKey.value.trim() === '' ? ' · no key' : ''}`;
}
settingsToggle.addEventListener('click', () => setSettingsOpen(!settingsPanel.classList.contains('expanded')));
model.addEventListener('change', () => setSettingsOpen(settingsPanel.classList.contains('expanded')));

// Kept in this tab (sessionStorage) as the hint says: saved as it is typed or pasted, so a
// reload right after pasting keeps it too.
apiKey.value = sessionStorage.getItem(keyStorage) ?? '';
apiKey.addEventListener('input', () => sessionStorage.setItem(keyStorage, apiKey.value.trim()));
apiKey.addEventListener('change', () => {
  setSettingsOpen(settingsPanel.classList.contains('expanded'));
  void modelPicker.refresh(client());
});
setSettingsOpen(false);
void modelPicker.refresh(client());
updateComposer();
