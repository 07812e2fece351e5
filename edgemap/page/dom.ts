// The few browser APIs the page uses, typed here: the project compiles without the DOM library
// (Node code must not see browser globals), so the page reaches them through `browser()`.

export interface PageElement {
  textContent: string | null;
  className: string;
  hidden: boolean;
  /** An input's text. */
  value: string;
  href: string;
  title: string;
  /** CSSOM only: the page's CSP refuses inline style attributes. */
  readonly style: { setProperty(name: string, value: string): void };
  append(...nodes: Array<PageElement | string>): void;
  replaceChildren(...nodes: Array<PageElement | string>): void;
  setAttribute(name: string, value: string): void;
  addEventListener(type: string, listener: () => void): void;
}

export interface PageDocument {
  getElementById(id: string): PageElement | null;
  createElement(tag: string): PageElement;
}

export interface ServerEvent {
  readonly data: string;
}

export interface PageEventSource {
  onopen: (() => void) | null;
  onerror: (() => void) | null;
  addEventListener(type: 'snapshot' | 'change', listener: (event: ServerEvent) => void): void;
  close(): void;
}

export interface Browser {
  readonly document: PageDocument;
  readonly EventSource: new (url: string) => PageEventSource;
  requestAnimationFrame(callback: () => void): number;
  setTimeout(callback: () => void, ms: number): number;
  /** Read-only view of the page's state for operators' consoles and the browser tests. */
  edgeMapPage?: unknown;
}

export function browser(): Browser {
  return globalThis as unknown as Browser;
}

/** An element with a class and text: content always goes in as text, never as markup. */
export function element(tag: string, className: string, text?: string): PageElement {
  const el = browser().document.createElement(tag);
  el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

export function byId(id: string): PageElement {
  const el = browser().document.getElementById(id);
  if (el === null) throw new Error(`edgeMap page: #${id} is missing from index.html`);
  return el;
}
