import { en, type MessageKey } from './en/index.js';

/**
 * The page's languages: English (the catalogue every other one is typed against), German, French
 * and Dutch. The language is the visitor's choice stored in this browser (localStorage), else the
 * first of the browser's languages (navigator.languages) the page speaks, else English. Numbers
 * and dates follow the matching browser locale (de-CH keeps its own separators), else the language.
 * See docs/architecture.md#web-interface-languages.
 */
export const LANGUAGES = ['en', 'de', 'fr', 'nl'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language's own name, as the language menu shows it in every language. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  nl: 'Nederlands',
};

export const LANGUAGE_STORAGE_KEY = 'meter-gateway.language';

export type Messages = Record<MessageKey, string>;
export type { MessageKey };

let messages: Messages = en;
let active: Language = 'en';
let locale = 'en';

function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** The language to show: the stored choice, else the first browser language the page speaks. */
export function chooseLanguage(stored: string | null, browser: readonly string[]): Language {
  if (isLanguage(stored)) return stored;
  for (const tag of browser) {
    const primary = tag.toLowerCase().split('-')[0];
    if (isLanguage(primary)) return primary;
  }
  return 'en';
}

/** The Intl locale of a language: the first browser locale of that language, else the language. */
export function localeOf(language: Language, browser: readonly string[]): string {
  return browser.find((tag) => tag.toLowerCase().split('-')[0] === language) ?? language;
}

/** Makes `catalogue` the one `t` reads; `intlLocale` formats numbers and dates. */
export function useLanguage(language: Language, catalogue: Messages, intlLocale: string = language): void {
  active = language;
  messages = catalogue;
  locale = intlLocale;
}

export function currentLanguage(): Language {
  return active;
}

/** The Intl locale of the chosen language (numbers, dates, chart axes). */
export function currentLocale(): string {
  return locale;
}

/**
 * The text of `key` in the chosen language, `{name}` placeholders replaced by `params`. A key the
 * catalogue lacks cannot be written (MessageKey); English stands in should a value be empty, and
 * the key itself for a key no catalogue has (a mistyped data-i18n), so the page still starts.
 */
export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  const text = messages[key] || en[key] || key;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/**
 * A text the server words in English and names by a message key with arguments
 * (docs/architecture.md#server-message-keys): the key's text in the page's language, else the
 * server's English `message` (a key this page does not know, or none). An argument `suffix` (a
 * phase or tariff, L1 or T2, alike in every language) follows the text.
 */
export function tServer(message: string, key?: unknown, args?: unknown): string {
  if (typeof key !== 'string' || !Object.hasOwn(en, key)) return message;
  const params: Record<string, string | number> = {};
  if (typeof args === 'object' && args !== null)
    for (const [name, value] of Object.entries(args))
      if (typeof value === 'string' || typeof value === 'number') params[name] = value;
  const text = t(key as MessageKey, params);
  return params.suffix === undefined ? text : `${text} ${params.suffix}`;
}

/** A translated text for a value the server names (a service state, a counter), else the value. */
export function tOr(key: string, fallback: string): string {
  return key in en ? t(key as MessageKey) : fallback;
}
