import { t } from './i18n/i18n.js';

/**
 * The gateway refused a request for the page's address (docs/architecture.md#cross-site-requests):
 * a banner on every page names the address and how to allow it, instead of a page that stays at
 * "connecting…".
 */
export function showOriginRefusal(address: string): void {
  const banner = document.getElementById('origin-refused');
  if (!banner) return;
  banner.textContent = t('origin.refused', { address });
  banner.hidden = false;
}
