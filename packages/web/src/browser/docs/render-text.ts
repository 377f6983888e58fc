import { h } from '../dom.js';

/**
 * Description text with its `code spans` as `<code>`; everything else stays plain text (the
 * document is data, never inserted as HTML).
 *
 * @example
 * renderText('Sent as `data: [DONE]`.'); // [ 'Sent as ', <code>data: [DONE]</code>, '.' ]
 */
export function renderText(text: string): (Node | string)[] {
  return text.split('`').map((part, index) => (index % 2 === 1 ? h('code', {}, part) : part));
}

/** A paragraph of description, or nothing when there is none. */
export function description(value: unknown, className = 'description'): HTMLElement | undefined {
  return typeof value === 'string' && value !== '' ? h('p', { class: className }, ...renderText(value)) : undefined;
}
