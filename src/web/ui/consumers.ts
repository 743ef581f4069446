import { element } from './api.js';

/**
 * Settings, Consumers: the addresses a consumer of a personality is given. HomeWizard consumers
 * (evcc, Home Assistant) and Shelly's HTTP consumers take the device's host; Home Assistant's and
 * shellies-ng's Shelly client talk JSON-RPC over the WebSocket at /rpc; Marstek batteries send UDP
 * JSON-RPC to the configured port. The gateway's host is the one this page was loaded from.
 */
function bindCopy(button: string, code: HTMLElement): void {
  element(button).addEventListener('click', () => {
    void navigator.clipboard?.writeText(code.textContent ?? '').catch(() => undefined);
  });
}

/** The Shelly addresses from the form's current UDP port (0: no UDP). */
export function showConsumerAddresses(): void {
  element('shelly-ws-address').textContent = `ws://${location.host}/rpc`;
  const port = Number(
    element('form-services').querySelector<HTMLInputElement>('input[name="services.emulate.shelly.udp_port"]')
      ?.value,
  );
  element('shelly-udp-address').textContent =
    Number.isInteger(port) && port > 0 ? `${location.hostname}:${port}` : '-';
}

export function bindConsumers(): void {
  const address = element('homewizard-address');
  address.textContent = location.host;
  bindCopy('homewizard-copy', address);
  bindCopy('shelly-ws-copy', element('shelly-ws-address'));
  bindCopy('shelly-udp-copy', element('shelly-udp-address'));
  element('form-services')
    .querySelector('input[name="services.emulate.shelly.udp_port"]')
    ?.addEventListener('input', showConsumerAddresses);
  showConsumerAddresses();
}
