/*
 * The colour theme, run as a classic script in the page's head so the first paint already has it:
 * the visitor's choice stored in this browser (light, dark or auto), auto following the operating
 * system's prefers-color-scheme (also when it changes). The resolved theme is the root element's
 * data-theme, which style.css keys its colour variables on; charts redraw on `themechange`.
 * See docs/architecture.md#web-interface-theme.
 */

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- merges into the DOM library's Window
interface Window {
  /** Stores a choice (light, dark, auto) and applies it; the theme menu calls it. */
  meterGatewayTheme: { choose(choice: string): void; choice(): string };
}

(() => {
  const STORAGE_KEY = 'meter-gateway.theme';
  const CHOICES = ['auto', 'light', 'dark'];
  const dark = window.matchMedia('(prefers-color-scheme: dark)');

  // Where storage is blocked (privacy settings), the choice lasts for this page only.
  let unstored = 'auto';
  const stored = (): string => {
    try {
      const value = localStorage.getItem(STORAGE_KEY);
      return value !== null && CHOICES.includes(value) ? value : 'auto';
    } catch {
      return unstored;
    }
  };

  const apply = (): void => {
    const choice = stored();
    const theme = choice === 'auto' ? (dark.matches ? 'dark' : 'light') : choice;
    const root = document.documentElement;
    if (root.dataset.theme === theme) return;
    root.dataset.theme = theme;
    window.dispatchEvent(new Event('themechange'));
  };

  window.meterGatewayTheme = {
    choose(choice: string): void {
      const valid = CHOICES.includes(choice) ? choice : 'auto';
      unstored = valid;
      try {
        localStorage.setItem(STORAGE_KEY, valid);
      } catch {
        // Not stored: `unstored` holds it.
      }
      apply();
    },
    choice: stored,
  };
  dark.addEventListener('change', apply);
  apply();
})();
