/**
 * GET /api/v1/modbus/table: the layout the slave serves, as rows a person reads. Declared once,
 * imported (type-only) by the server module that builds it and by the web page.
 */

export interface RegisterRowView {
  /** 0-based input register address of the first word. */
  address: number;
  id: string;
  name: string;
  /** Unit of the value before the scaler; '' where there is none. */
  unit: string;
  /** double, float, long, int, short; 'bytes' for byte arrays, 'padding' for fill words. */
  type: string;
  /** The value is served multiplied by 10^scaler. */
  scaler: number;
  words: number;
}

export interface RegisterSetView {
  start_address: number;
  word_order: 'msw' | 'lsw';
  rows: RegisterRowView[];
}

export interface ModbusTableView {
  /** Whether a custom layout is set ('custom') or the default one is served. */
  source: 'custom' | 'default';
  sets: RegisterSetView[];
}
