import { element } from './api.js';

/**
 * Settings, Consumers: the address a consumer of a personality is given. HomeWizard consumers (evcc,
 * Home Assistant) take the device's host; the gateway's is the one this page was loaded from.
 */
export function bindConsumers(): void {
  const address = element('homewizard-address');
  address.textContent = location.host;
  element('homewizard-copy').addEventListener('click', () => {
    void navigator.clipboard?.writeText(address.textContent ?? '').catch(() => undefined);
  });
}
