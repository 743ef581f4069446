import { crc16Arc } from '../src/checksum/crc16.js';

/**
 * A DSMR 5.0.2 P1 telegram (three phases, tariffs, gas) written for the MQTT latency benchmark.
 * The sequence number is encoded in 1-0:1.7.0 (seq / 1000 kW, wrapping at 100 kW) so a subscriber
 * can tell which telegram a message belongs to. CRC-16/ARC over '/'..'!' (DSMR 5.0.2 §6.2).
 */
export function benchTelegram(seq: number): Buffer {
  const power = ((seq % 100_000) / 1000).toFixed(3).padStart(6, '0');
  const lines = [
    '/ISK5\\2M550T-1012',
    '',
    '1-3:0.2.8(50)',
    '0-0:1.0.0(261121120000W)',
    '0-0:96.1.1(4530303034303031353934373534343134)',
    '1-0:1.8.1(009811.204*kWh)',
    '1-0:1.8.2(008923.308*kWh)',
    '1-0:2.8.1(001811.420*kWh)',
    '1-0:2.8.2(002291.457*kWh)',
    '0-0:96.14.0(0002)',
    `1-0:1.7.0(${power}*kW)`,
    '1-0:2.7.0(00.000*kW)',
    '1-0:32.7.0(231.4*V)',
    '1-0:52.7.0(229.8*V)',
    '1-0:72.7.0(232.1*V)',
    '1-0:31.7.0(004*A)',
    '1-0:51.7.0(003*A)',
    '1-0:71.7.0(003*A)',
    '1-0:21.7.0(00.962*kW)',
    '1-0:41.7.0(00.703*kW)',
    '1-0:61.7.0(00.747*kW)',
    '1-0:22.7.0(00.000*kW)',
    '1-0:42.7.0(00.000*kW)',
    '1-0:62.7.0(00.000*kW)',
    '0-1:24.1.0(003)',
    '0-1:96.1.0(4730303339303031363532303530323136)',
    '0-1:24.2.1(261121115500W)(04521.338*m3)',
    '!',
  ];
  const body = Buffer.from(lines.join('\r\n'), 'latin1');
  const crc = crc16Arc(body).toString(16).toUpperCase().padStart(4, '0');
  return Buffer.concat([body, Buffer.from(`${crc}\r\n`, 'latin1')]);
}

/** The sequence number back from the active power import of a reading (kW). */
export function sequenceOf(powerKw: number): number {
  return Math.round(powerKw * 1000);
}
