/**
 * English texts of the further-meter editor in Settings > Meter: the labelled form of a meter, its
 * source kinds and their fields, the expression builder of a virtual meter.
 */
export const metersEditor = {
  'meters.editor.new': 'New meter',
  'meters.editor.role': 'Role',
  'meters.editor.kind': 'Source',
  'meters.editor.kind_serial': 'Serial port (P1, SML, IEC 62056-21)',
  'meters.editor.kind_modbus_tcp': 'Modbus TCP meter',
  'meters.editor.kind_modbus_rtu': 'Modbus RTU meter (RS485)',
  'meters.editor.kind_homewizard': 'HomeWizard P1 meter',
  'meters.editor.kind_shelly': 'Shelly Pro 3EM',
  'meters.editor.kind_virtual': 'Virtual meter (expression)',
  'meters.editor.kind_uri': 'Other source (URI)',
  'meters.editor.port': 'Serial port',
  'meters.editor.device': 'RS485 adapter',
  'meters.editor.no_port': 'no serial port found',
  'meters.editor.protocol': 'Protocol',
  'meters.editor.protocol_auto': 'recognise automatically',
  'meters.editor.host': 'Host name or IP address',
  'meters.editor.tcp_port': 'TCP port',
  'meters.editor.baud': 'Baud rate',
  'meters.editor.profile': 'Register profile',
  'meters.editor.unit': 'Unit id',
  'meters.editor.uri': 'Source URI',
  'meters.editor.expression': 'Expression',
  'meters.editor.expression_hint': '+, − and factors over meter ids, e.g. main - ev',
  'meters.editor.insert': 'Insert a meter id',
  'meters.editor.built': 'Source URI: {uri}',
};
