import type { metersEditor as english } from '../en/meters-editor.js';
import type { Translation } from '../part.js';

/** Nederlands: de editor van extra meters (soorten bron, hun velden, uitdrukking). */
export const metersEditor: Translation<typeof english> = {
  'meters.editor.new': 'Nieuwe meter',
  'meters.editor.role': 'Rol',
  'meters.editor.kind': 'Bron',
  'meters.editor.kind_serial': 'Seriële poort (P1, SML, IEC 62056-21)',
  'meters.editor.kind_modbus_tcp': 'Modbus TCP-meter',
  'meters.editor.kind_modbus_rtu': 'Modbus RTU-meter (RS485)',
  'meters.editor.kind_homewizard': 'HomeWizard P1-meter',
  'meters.editor.kind_shelly': 'Shelly Pro 3EM',
  'meters.editor.kind_virtual': 'Virtuele meter (uitdrukking)',
  'meters.editor.kind_uri': 'Andere bron (URI)',
  'meters.editor.port': 'Seriële poort',
  'meters.editor.device': 'RS485-adapter',
  'meters.editor.no_port': 'geen seriële poort gevonden',
  'meters.editor.protocol': 'Protocol',
  'meters.editor.protocol_auto': 'automatisch herkennen',
  'meters.editor.host': 'Hostnaam of IP-adres',
  'meters.editor.tcp_port': 'TCP-poort',
  'meters.editor.baud': 'Baudrate',
  'meters.editor.profile': 'Registerprofiel',
  'meters.editor.unit': 'Unit-id',
  'meters.editor.uri': 'Bron-URI',
  'meters.editor.expression': 'Uitdrukking',
  'meters.editor.expression_hint': '+, − en factoren over meter-id’s, bv. main - ev',
  'meters.editor.insert': 'Meter-id invoegen',
  'meters.editor.built': 'Bron-URI: {uri}',
};
