import type { ToolCall, Usage } from '@quantum-chat/client';
import { h } from '../dom.js';
import type { ErrorDetails } from './describe-error.js';
import { formatArguments, formatUsage } from './format.js';

/** One fragment of a tool call as the stream delivers it. */
interface ToolCallFragment {
  index: number;
  id?: string | undefined;
  name?: string | undefined;
  argumentsDelta: string;
}

/** The transcript entry of one assistant answer, filled in as the answer arrives. */
export interface AssistantTurn {
  element: HTMLLIElement;
  addReasoning(text: string): void;
  addContent(text: string): void;
  addToolCallFragment(fragment: ToolCallFragment): void;
  /** The answer is complete: shows why it stopped and what it cost (the reasoning stays as the reader left it). */
  finish(finishReason: string | null, usage: Usage | null): void;
  /** Shows the finished tool calls, each with a box for its result. */
  showToolCalls(calls: ToolCall[], onResult: (call: ToolCall, result: string) => void): void;
  fail(details: ErrorDetails, retry: () => void): void;
  stopped(): void;
  /** Shows (or hides) "reconnecting…" while a resumable stream's dropped connection is re-opened. */
  reconnecting(active: boolean): void;
}

/**
 * The reasoning's panel: open while it streams and afterwards (the reader folds it with the
 * Hide/Show toggle). `startedAt` is when the request was sent: the model thinks from then on,
 * also before its first reasoning token arrives.
 */
function createReasoningPanel(startedAt: number) {
  const text = document.createTextNode('');
  const status = h('span', { class: 'reasoning-status' }, 'thinking…');
  // A visible control: `summary` with `display: flex` loses the browser's disclosure marker.
  const toggle = h('span', { class: 'reasoning-toggle', 'aria-hidden': 'true' }, 'Hide');
  const summary = h('summary', {}, h('span', { class: 'reasoning-title' }, 'Reasoning'), status, toggle);
  const panel = h('details', { class: 'reasoning', open: true }, summary, h('div', { class: 'reasoning-text' }, text));
  panel.addEventListener('toggle', () => {
    toggle.textContent = panel.open ? 'Hide' : 'Show';
  });
  let settled = false;
  /** The reasoning is over (the answer began, or the stream ended): say how long it took. */
  const settle = () => {
    if (settled) return;
    settled = true;
    status.textContent = `thought for ${((performance.now() - startedAt) / 1000).toFixed(1)} s`;
  };
  return { panel, add: (piece: string) => text.appendData(piece), settle };
}

function createToolCallView(index: number) {
  const name = h('span', { class: 'tool-name' }, '…');
  const id = h('code', { class: 'tool-call-id' });
  const argumentsText = h('pre', { class: 'tool-arguments' });
  const element = h('section', { class: 'tool-call', 'data-index': index }, h('header', {}, h('span', { class: 'tool-label' }, 'Tool call'), name, id), argumentsText);
  return { element, name, id, argumentsText };
}

/**
 * Creates the transcript entry of an assistant answer for `model`, when its request is sent.
 * Text is appended as it streams; the reasoning gets a panel of its own, open until the
 * reader folds it.
 *
 * @example
 * const turn = createAssistantTurn('quantum-reasoner');
 * transcript.append(turn.element);
 * turn.addReasoning('Let me think. ');
 */
export function createAssistantTurn(model: string): AssistantTurn {
  const startedAt = performance.now();
  const body = h('div', { class: 'message-body' });
  const element = h('li', { class: 'message assistant streaming' }, h('div', { class: 'message-role' }, 'assistant', h('span', { class: 'model-badge' }, model)), body);
  let reasoning: ReturnType<typeof createReasoningPanel> | undefined;
  let content: Text | undefined;
  const toolCalls = new Map<number, ReturnType<typeof createToolCallView>>();
  let toolCallList: HTMLElement | undefined;

  const end = () => element.classList.remove('streaming');
  let reconnectingNote: HTMLElement | undefined;

  function toolCallView(index: number) {
    let view = toolCalls.get(index);
    if (view === undefined) {
      view = createToolCallView(index);
      toolCalls.set(index, view);
      toolCallList ??= body.appendChild(h('div', { class: 'tool-calls' }));
      toolCallList.append(view.element);
    }
    return view;
  }

  return {
    element,
    addReasoning(text) {
      if (reasoning === undefined) {
        reasoning = createReasoningPanel(startedAt);
        body.prepend(reasoning.panel);
      }
      reasoning.add(text);
    },
    addContent(text) {
      reasoning?.settle();
      if (content === undefined) {
        content = document.createTextNode('');
        const answer = h('div', { class: 'content' }, content);
        if (toolCallList) body.insertBefore(answer, toolCallList);
        else body.append(answer);
      }
      content.appendData(text);
    },
    addToolCallFragment(fragment) {
      const view = toolCallView(fragment.index);
      if (fragment.name) view.name.textContent = fragment.name;
      if (fragment.id) view.id.textContent = fragment.id;
      view.argumentsText.append(fragment.argumentsDelta);
    },
    reconnecting(active) {
      if (!active) {
        reconnectingNote?.remove();
        reconnectingNote = undefined;
        return;
      }
      reconnectingNote ??= body.appendChild(h('div', { class: 'message-meta reconnecting', role: 'status' }, 'reconnecting…'));
    },
    finish(finishReason, usage) {
      end();
      reasoning?.settle();
      if (content === undefined && toolCalls.size === 0) body.append(h('div', { class: 'content empty-answer' }, '(no text)'));
      const parts = [finishReason === null ? undefined : `finish_reason: ${finishReason}`, usage === null ? undefined : formatUsage(usage)];
      body.append(h('div', { class: 'message-meta' }, parts.filter(Boolean).join(' · ')));
    },
    showToolCalls(calls, onResult) {
      for (const [index, call] of calls.entries()) {
        const view = toolCallView(index);
        view.name.textContent = call.function.name;
        view.id.textContent = call.id;
        view.argumentsText.textContent = formatArguments(call.function.arguments);
        const input = h('textarea', { rows: 3, spellcheck: 'false', 'aria-label': `Result of ${call.function.name}`, placeholder: 'What the tool returned, e.g. {"temperature": 18, "unit": "celsius"}' });
        const form = h('form', { class: 'tool-result' }, h('span', { class: 'label' }, `Result of ${call.function.name}`), input, h('button', { type: 'submit', class: 'primary' }, 'Send result'));
        form.addEventListener('submit', (event) => {
          event.preventDefault();
          form.replaceWith(h('p', { class: 'tool-result-sent' }, 'Result sent.'));
          onResult(call, input.value);
        });
        view.element.append(form);
      }
      element.querySelector<HTMLTextAreaElement>('.tool-result textarea')?.focus();
    },
    fail(details, retry) {
      end();
      reasoning?.settle();
      const retryButton = h('button', { type: 'button', class: 'secondary' }, 'Retry');
      retryButton.addEventListener('click', () => {
        element.remove();
        retry();
      });
      const extra = [details.param ? `param: ${details.param}` : undefined, details.requestId ? `request id: ${details.requestId}` : undefined].filter(Boolean).join(' · ');
      body.append(
        h(
          'div',
          { class: 'error', role: 'alert' },
          h('div', { class: 'error-head' }, h('span', { class: 'error-type' }, details.type), details.code && h('code', { class: 'error-code' }, details.code), details.status !== undefined && h('span', { class: 'error-status' }, `HTTP ${details.status}`)),
          h('p', { class: 'error-message' }, details.message),
          extra && h('p', { class: 'error-extra' }, extra),
          retryButton,
        ),
      );
    },
    stopped() {
      end();
      reasoning?.settle();
      body.append(h('div', { class: 'message-meta' }, 'Stopped. This partial answer is not part of the conversation.'));
    },
  };
}
