import { en } from './en/index.js';
import { applyStatic } from './static-text.js';
import {
  chooseLanguage,
  LANGUAGE_STORAGE_KEY,
  localeOf,
  useLanguage,
  type Language,
  type Messages,
} from './i18n.js';

/** The catalogues other than English, each loaded only when chosen (one request, a few kB). */
const LOADERS: Record<Exclude<Language, 'en'>, () => Promise<Messages>> = {
  de: async () => (await import('./de/index.js')).de,
  fr: async () => (await import('./fr/index.js')).fr,
  nl: async () => (await import('./nl/index.js')).nl,
};

function storedLanguage(): string | null {
  try {
    return localStorage.getItem(LANGUAGE_STORAGE_KEY);
  } catch {
    return null; // storage blocked (privacy settings): the browser's languages decide
  }
}

/** Picks the language, loads its catalogue and translates the static page (before the app binds). */
export async function startLanguage(): Promise<Language> {
  const browser = navigator.languages?.length ? navigator.languages : [navigator.language];
  const language = chooseLanguage(storedLanguage(), browser);
  if (language !== 'en') {
    try {
      useLanguage(language, await LOADERS[language](), localeOf(language, browser));
    } catch {
      // The catalogue did not load (connection lost): the page stays English.
    }
  } else useLanguage('en', en, localeOf('en', browser));
  document.documentElement.lang = language;
  applyStatic(document);
  return language;
}

/** Stores the visitor's choice and shows the page again in it. */
export function switchLanguage(language: Language): void {
  try {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, language);
  } catch {
    // Not stored: the choice lasts for this page only.
  }
  location.reload();
}
