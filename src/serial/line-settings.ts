/** Character framing and rate of a serial line ("9600 7E1"). */
export interface LineSettings {
  baudRate: number;
  dataBits: 7 | 8;
  parity: 'none' | 'even' | 'odd';
  stopBits: 1 | 2;
}

/** "115200 8N1" */
export function formatLine(line: LineSettings): string {
  return `${line.baudRate} ${line.dataBits}${line.parity[0]!.toUpperCase()}${line.stopBits}`;
}
