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
