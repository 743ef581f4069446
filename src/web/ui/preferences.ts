import { switchLanguage } from './i18n/load.js';
import { currentLanguage, LANGUAGE_NAMES, LANGUAGES, type Language } from './i18n/i18n.js';
import { element } from './api.js';

/** The header's language and theme menus: the language reloads the page in it, the theme applies at once. */
export function bindPreferences(): void {
  const language = element<HTMLSelectElement>('language-choice');
  language.replaceChildren(
    ...LANGUAGES.map((code) => {
      const option = new Option(LANGUAGE_NAMES[code], code, false, code === currentLanguage());
      option.lang = code;
      return option;
    }),
  );
  language.addEventListener('change', () => switchLanguage(language.value as Language));
  const theme = element<HTMLSelectElement>('theme-choice');
  theme.value = window.meterGatewayTheme.choice();
  theme.addEventListener('change', () => window.meterGatewayTheme.choose(theme.value));
}
