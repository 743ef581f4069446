import type { metersEditor as english } from '../en/meters-editor.js';
import type { Translation } from '../part.js';

/** Deutsch: der Editor weiterer Zähler (Quellenarten, ihre Felder, Ausdruck). */
export const metersEditor: Translation<typeof english> = {
  'meters.editor.new': 'Neuer Zähler',
  'meters.editor.role': 'Rolle',
  'meters.editor.kind': 'Quelle',
  'meters.editor.kind_serial': 'Serielle Schnittstelle (P1, SML, IEC 62056-21)',
  'meters.editor.kind_modbus_tcp': 'Modbus-TCP-Zähler',
  'meters.editor.kind_modbus_rtu': 'Modbus-RTU-Zähler (RS485)',
  'meters.editor.kind_homewizard': 'HomeWizard-P1-Zähler',
  'meters.editor.kind_shelly': 'Shelly Pro 3EM',
  'meters.editor.kind_virtual': 'Virtueller Zähler (Ausdruck)',
  'meters.editor.kind_uri': 'Andere Quelle (URI)',
  'meters.editor.port': 'Serielle Schnittstelle',
  'meters.editor.device': 'RS485-Adapter',
  'meters.editor.no_port': 'keine serielle Schnittstelle gefunden',
  'meters.editor.protocol': 'Protokoll',
  'meters.editor.protocol_auto': 'automatisch erkennen',
  'meters.editor.host': 'Hostname oder IP-Adresse',
  'meters.editor.tcp_port': 'TCP-Port',
  'meters.editor.baud': 'Baudrate',
  'meters.editor.profile': 'Registerprofil',
  'meters.editor.unit': 'Geräteadresse (Unit-ID)',
  'meters.editor.uri': 'Quell-URI',
  'meters.editor.expression': 'Ausdruck',
  'meters.editor.expression_hint': '+, − und Faktoren über Zähler-IDs, z. B. main - ev',
  'meters.editor.insert': 'Zähler-ID einfügen',
  'meters.editor.built': 'Quell-URI: {uri}',
};
