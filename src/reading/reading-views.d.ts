/**
 * The JSON of the live stream, the report and the system endpoint, as far as the web page reads it:
 * declared once for the server code that builds it and the page that reads it (a declaration file,
 * so the page's separate compilation can import it type-only). Keys the page does not read are kept
 * open by the index signatures; the endpoints' JSON schemas (src/http/api-schemas.ts) stay the full
 * description.
 */

/** One M-Bus channel of the live payload (gas, water, heat meters on the meter's M-Bus). */
export interface LiveVolume {
  Bus: number;
  M_ID?: string;
  DT?: string;
  Cum?: number;
}

/**
 * One `event: live` (docs/architecture.md#live-payload): quantities by live key (kW, kWh, V, A,
 * Hz ...), `T` the tariff, `Vol` the M-Bus channels, `Date`/`Time` local, `Uptime` in hours.
 */
export interface LivePayload {
  [liveKey: string]: number | string | LiveVolume[] | undefined;
  P_In?: number;
  P_Out?: number;
  T?: number;
  Vol?: LiveVolume[];
  Date: string;
  Time: string;
  Uptime: number;
}

/** The meter object of the report and of /api/v1/system. */
export interface MeterView {
  [field: string]: string | number | undefined;
  status: string;
  interface: string;
  protocol?: string;
  protocol_version?: string;
  vendor?: string;
  model?: string;
  id?: string;
}

/** A direction of instantaneous power in the report, kW: total and per phase. */
export interface ReportPower {
  total?: number;
  l1?: number;
  l2?: number;
  l3?: number;
}

/** GET /api/v1/report (docs/architecture.md#report-shape): fields appear only when the meter sent them. */
export interface ReportView {
  report: {
    [field: string]: unknown;
    id: number;
    date_time?: string;
    instantaneous_power?: {
      [kind: string]: unknown;
      active?: { positive?: ReportPower; negative?: ReportPower };
    };
  };
  meter: MeterView;
  system: Record<string, unknown>;
}

/** GET /api/v1/system, the parts the page reads; the rest stays open. */
export interface SystemView {
  [part: string]: unknown;
  device: {
    [field: string]: unknown;
    name: string;
    id: string;
    model: string;
    firmware: string;
  };
  meter: MeterView;
}
