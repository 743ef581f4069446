/**
 * The JSON of GET /api/v1/history, declared once for the route that answers and the web page that
 * reads it (a declaration file, so the page's separate compilation can import it type-only).
 */

/** Power statistics of a bucket as shown: kW, the mean computed from the stored sum. */
export interface PowerView {
  min: number;
  mean: number;
  max: number;
}

/** Point as GET /api/v1/history shows it: bucket start (Unix s), readings, power and energy (kWh). */
export interface PointView {
  t: number;
  n: number;
  p_in: PowerView | null;
  p_out: PowerView | null;
  e_in: number | null;
  e_out: number | null;
  /** Money of the bucket (services.costs on): import paid, export received; null where unknown. */
  cost?: CostView;
}

export interface CostView {
  import: number | null;
  export: number | null;
}

/** Costs of the points that start inside the range (services.costs on), in `currency`. */
export interface CostTotalsView {
  currency: string;
  import: number;
  export: number;
  /** The monthly standing charge's share of the range. */
  standing: number;
  /** A capacity charge on the peak demand, when a module provides one; else null. */
  capacity: number | null;
  /** import - export + standing + capacity. */
  total: number;
}

/** The answer of GET /api/v1/history: the resolution, the range in Unix seconds and its points. */
export interface HistoryView {
  /** The meter asked for with `?meter=` when it is not the primary (docs/architecture.md#several-meters). */
  meter?: string;
  resolution: string;
  from: number;
  to: number;
  points: PointView[];
  costs?: CostTotalsView;
}

/**
 * One reading of the recent-power buffer: when it arrived (Unix s, ms precision) and the power
 * quantities it carried, kW by their live keys (docs/architecture.md#live-payload); absent ones absent.
 */
export interface RecentPoint {
  t: number;
  P_In?: number;
  P_Out?: number;
  P_P1_In?: number;
  P_P2_In?: number;
  P_P3_In?: number;
  P_P1_Out?: number;
  P_P2_Out?: number;
  P_P3_Out?: number;
}

/** GET /api/v1/history/recent: the readings of the last `seconds` seconds kept in memory, ascending. */
export interface RecentView {
  seconds: number;
  points: RecentPoint[];
}
