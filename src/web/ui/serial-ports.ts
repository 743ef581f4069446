import type { SerialPortView } from '../../contracts/status.js';
import { api, element } from './api.js';
import { t, type MessageKey } from './i18n/i18n.js';

const KIND_LABELS: Record<SerialPortView['kind'], MessageKey> = {
  'by-id': 'settings.port_usb_adapter',
  usb: 'settings.port_usb_serial',
  acm: 'settings.port_acm',
  uart: 'settings.port_uart',
};

/**
 * The probe form's list of serial ports present: picking one fills the device field. Returns the
 * loader that refreshes the list (each time the meter tab opens).
 */
export function bindPortPicker(): () => Promise<void> {
  const picker = element<HTMLSelectElement>('probe-ports');
  const device =
    element<HTMLFormElement>('form-probe').querySelector<HTMLInputElement>('input[name=device]')!;
  picker.addEventListener('change', () => {
    if (picker.value) device.value = picker.value;
  });
  return async () => {
    try {
      const { ports } = await api<{ ports: SerialPortView[] }>('GET', '/api/v1/serial/ports');
      const head = new Option(t(ports.length === 0 ? 'settings.no_port_found' : 'settings.pick_port'), '');
      picker.replaceChildren(
        head,
        ...ports.map(
          (port) =>
            new Option(
              `${port.path} (${t(KIND_LABELS[port.kind])}${port.target ? ` → ${port.target}` : ''})`,
              port.path,
            ),
        ),
      );
    } catch (error) {
      picker.replaceChildren(
        new Option(t('settings.port_list_failed', { message: (error as Error).message }), ''),
      );
    }
  };
}
