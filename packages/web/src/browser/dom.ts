/** What `h` accepts as children: nodes, text, and nothing (skipped). */
export type Child = Node | string | number | null | undefined | false;

/** Attribute values: `true` sets an empty attribute, `false`/`undefined` leaves it out. */
export type Attributes = Record<string, string | number | boolean | undefined>;

/**
 * Creates an element with attributes and children. Text is always inserted as text, never
 * parsed as HTML, so API data (answers, errors, schema descriptions) cannot inject markup.
 *
 * @example
 * h('p', { class: 'hint' }, 'Kept in this tab only.');
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, ...children);
  return element;
}

/** Appends children, skipping empty ones. */
function append(parent: Node, ...children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** The element with this id; a missing one is a bug in the page, so it throws. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`The page has no #${id}.`);
  return element as T;
}

/** The API base path the server wrote into the page (`<meta name="quantum-chat-api">`), as an absolute URL. */
export function apiBaseUrl(): string {
  const path = document.querySelector<HTMLMetaElement>('meta[name="quantum-chat-api"]')?.content || '/v1';
  return new URL(path, window.location.href).href.replace(/\/+$/u, '');
}
