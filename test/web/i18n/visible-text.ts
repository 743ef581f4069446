/**
 * What a visitor reads on the page, collected in the page (Chromium): the text of every rendered
 * text node, the chosen option of every visible select, the title, placeholder and aria-label of
 * visible elements, and the document title. Left out: text the daemon itself words (elements
 * marked translate="no": log lines, status details, register names), form values and the
 * hidden parts of the page. With `daemonWorded` true the texts marked translate="no" are collected
 * too (the log lines excepted: the daemon's log is English by design), for the check of the
 * server's own prose. Passed to page.evaluate as a function: the page's Content-Security-Policy
 * forbids evaluating strings.
 */

/** The DOM as far as the collector reads it (tests compile without the DOM library). */
interface Node_ {
  nodeValue: string | null;
  parentElement: Element_ | null;
}
interface Element_ {
  tagName: string;
  closest(selector: string): Element_ | null;
  checkVisibility(options: { visibilityProperty: boolean }): boolean;
  getAttribute(name: string): string | null;
  selectedOptions?: ArrayLike<{ text: string }>;
}
interface Document_ {
  title: string;
  body: unknown;
  querySelectorAll(selector: string): ArrayLike<Element_>;
  createTreeWalker(root: unknown, what: number): { nextNode(): Node_ | null };
}

export function collectVisibleText(daemonWorded: boolean | void = false): string[] {
  const doc = (globalThis as unknown as { document: Document_ }).document;
  const found: string[] = [];
  const add = (text: string | null | undefined) => {
    const clean = (text ?? '').replace(/\s+/g, ' ').trim();
    if (/\p{L}/u.test(clean)) found.push(clean);
  };
  const skipped = (element: Element_) =>
    daemonWorded ? element.closest('#log-lines') !== null : element.closest('[translate="no"]') !== null;
  const SHOW_TEXT = 4;
  const walker = doc.createTreeWalker(doc.body, SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('script, style, textarea, select') || skipped(parent)) continue;
    if (parent.checkVisibility({ visibilityProperty: true })) add(node.nodeValue);
  }
  for (const select of Array.from(doc.querySelectorAll('select'))) {
    if (!select.checkVisibility({ visibilityProperty: true }) || skipped(select)) continue;
    add(select.selectedOptions?.[0]?.text);
  }
  for (const element of Array.from(doc.querySelectorAll('[title], [placeholder], [aria-label]'))) {
    if (!element.checkVisibility({ visibilityProperty: true })) continue;
    for (const name of ['title', 'placeholder', 'aria-label']) add(element.getAttribute(name));
  }
  add(doc.title);
  return found;
}
