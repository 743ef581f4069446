import type { SerialPortView } from '../../http/status-views.js';
import { api, element } from './api.js';

const KIND_LABELS: Record<SerialPortView['kind'], string> = {
  'by-id': 'USB adapter',
  usb: 'USB serial',
  acm: 'USB modem (CDC ACM)',
  uart: 'on-board UART',
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
      const head = new Option(ports.length === 0 ? 'no serial port found' : 'pick a port found…', '');
      picker.replaceChildren(
        head,
        ...ports.map(
          (port) =>
            new Option(
              `${port.path} (${KIND_LABELS[port.kind]}${port.target ? ` → ${port.target}` : ''})`,
              port.path,
            ),
        ),
      );
    } catch (error) {
      picker.replaceChildren(new Option(`port list unavailable: ${(error as Error).message}`, ''));
    }
  };
}
