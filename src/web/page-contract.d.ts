/**
 * The JSON the web page reads that the page's own server modules produce: declared once, imported
 * (type-only) by the server side that answers and by the page in src/web/ui, which its separate
 * compilation can do because a declaration file is never emitted.
 */

/** One value a setting can take and how a settings page labels it. */
export interface SettingChoice {
  value: string;
  label: string;
}

/**
 * GET /api/v1/settings/choices: for every setting whose value is one of a fixed list, by its
 * dotted config path (as the settings endpoints name fields), the values in the schema's order.
 */
export type SettingsChoices = Record<string, SettingChoice[]>;

/** A setting's limits from the schema, as a form applies them to its control. */
export interface SettingLimits {
  min?: number;
  max?: number;
  step?: number;
  minLength?: number;
  maxLength?: number;
  /** The schema's pattern (RegExp source), for the control's pattern attribute. */
  pattern?: string;
}

/** GET /api/v1/settings/limits: the limits of every setting by its dotted config path. */
export type SettingsLimits = Record<string, SettingLimits>;

/** A quantity of the quantity table as the Actions form offers it. */
export interface QuantityChoice {
  /** MQTT template variable (`2_7_0`), usable as `${2_7_0}` and as a `when.value`. */
  name: string;
  /** Live key (`P_Out`), when the live stream carries it. */
  live?: string;
  /** Human name from the quantity table. */
  label: string;
  unit: string;
}

/** A status code of an action run (the server's code table) and whether it counts as success. */
export interface StatusCodeChoice {
  code: number;
  /** The table's name of the code (`timeout`, `connection`, ...). */
  name: string;
  ok: boolean;
}

/**
 * GET /api/v1/actions/choices: what the Actions form offers and checks, from the server's own
 * tables: the quantities, the definition's limits and enumerations, and the status code table.
 */
export interface ActionsChoices {
  quantities: QuantityChoice[];
  limits: {
    actions: number;
    requestsPerAction: number;
    idLength: number;
    constNameLength: number;
    headers: number;
    timeoutSeconds: { min: number; max: number };
    forSeconds: number;
    minIntervalSeconds: number;
  };
  http_methods: string[];
  modbus_funcs: number[];
  value_types: string[];
  defaults: { method: string; modbusPort: number; unitId: number; type: string };
  /** Named codes; other codes: an HTTP status (`http_ok` range: success) or a Modbus exception. */
  status_codes: StatusCodeChoice[];
  http_ok: [number, number];
}
