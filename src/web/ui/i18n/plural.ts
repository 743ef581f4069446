import { en } from './en/index.js';
import { currentLocale, t, type MessageKey } from './i18n.js';

const rules = new Map<string, Intl.PluralRules>();

/**
 * The form of `key` for `count` in the chosen language: Intl.PluralRules names the count's plural
 * category in the page's locale (CLDR: in English, German and Dutch "one" is exactly 1; in French
 * 0 and 1); `<key>_<category>` is that form when the catalogue has it, `key` itself the other form.
 * `count` is passed to the text as `{count}` beside `params`.
 */
export function tCount(key: MessageKey, count: number, params: Record<string, string | number> = {}): string {
  const locale = currentLocale();
  let rule = rules.get(locale);
  if (!rule) {
    rule = new Intl.PluralRules(locale);
    rules.set(locale, rule);
  }
  const category = rule.select(count);
  const form = `${key}_${category}`;
  const chosen = category !== 'other' && form in en ? (form as MessageKey) : key;
  return t(chosen, { ...params, count });
}
