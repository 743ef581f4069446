import { t, type MessageKey } from './i18n.js';

/** The attributes a `data-i18n-<attribute>="key"` translates besides the text itself. */
const ATTRIBUTES = ['placeholder', 'aria-label', 'title'] as const;

/**
 * Translates the static page: every element with `data-i18n="key"` gets the key's text as its
 * content, `data-i18n-placeholder` / `data-i18n-aria-label` / `data-i18n-title` the attribute.
 * Elements with data-i18n hold text only (the page wraps text beside controls in a span).
 */
export function applyStatic(root: ParentNode): void {
  for (const element of root.querySelectorAll<HTMLElement>('[data-i18n]'))
    element.textContent = t(element.dataset.i18n as MessageKey);
  for (const attribute of ATTRIBUTES) {
    for (const element of root.querySelectorAll<HTMLElement>(`[data-i18n-${attribute}]`))
      element.setAttribute(attribute, t(element.getAttribute(`data-i18n-${attribute}`) as MessageKey));
  }
}
