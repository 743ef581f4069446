import Type, { type Static } from 'typebox';
import { LOG_LEVELS, BACKUP_FORMAT } from './values.js';

export type { LogLevelName } from './values.js';

/** The JSON of the log, backup and serial-port endpoints. */

/** One line of GET /api/v1/log. */
export const LogLineViewSchema = Type.Object({
  time: Type.String({ description: 'ISO 8601 UTC' }),
  level: Type.Enum(LOG_LEVELS),
  component: Type.Optional(Type.String()),
  message: Type.String(),
  fields: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: "the entry's other fields, when it has any" }),
  ),
});
export type LogLineView = Static<typeof LogLineViewSchema>;

/** GET /api/v1/log: the latest lines at `level` or more severe, oldest first. */
export const LogViewSchema = Type.Object({
  level: Type.Enum(LOG_LEVELS),
  lines: Type.Array(LogLineViewSchema),
  capacity: Type.Integer({ description: 'how many lines the daemon keeps in memory' }),
  total: Type.Integer({ description: 'how many lines it logged since start' }),
});
export type LogView = Static<typeof LogViewSchema>;

/** GET /api/v1/backup, and the body POST /api/v1/backup restores from. */
export const SettingsBackupSchema = Type.Object({
  format: Type.Literal(BACKUP_FORMAT),
  version: Type.Literal(1),
  created: Type.String({ description: 'ISO 8601 UTC' }),
  secrets_included: Type.Boolean({
    description: 'whether settings holds the passwords and keys (then the file must be kept private)',
  }),
  settings: Type.Record(Type.String(), Type.Unknown(), {
    description: 'every setting the API can write, as a nested object of config paths',
  }),
});
export type SettingsBackup = Static<typeof SettingsBackupSchema>;

/** The body POST /api/v1/backup restores from: a backup file (created and secrets_included may be left out). */
export const SettingsRestoreSchema = Type.Object({
  ...SettingsBackupSchema.properties,
  created: Type.Optional(SettingsBackupSchema.properties.created),
  secrets_included: Type.Optional(SettingsBackupSchema.properties.secrets_included),
});
export type SettingsRestore = Static<typeof SettingsRestoreSchema>;

/** The answer of POST /api/v1/backup: how many settings the file held, and the paths that changed. */
export const RestoreAnswerSchema = Type.Object({
  restored: Type.Integer(),
  changed: Type.Array(Type.String()),
});
export type RestoreAnswer = Static<typeof RestoreAnswerSchema>;

/** A serial device present: stable names first. */
export const SerialPortViewSchema = Type.Object({
  path: Type.String(),
  target: Type.Optional(Type.String({ description: 'where a /dev/serial/by-id link points' })),
  kind: Type.Enum(['by-id', 'usb', 'acm', 'uart']),
});
export type SerialPortView = Static<typeof SerialPortViewSchema>;

/** GET /api/v1/serial/ports. */
export const SerialPortsSchema = Type.Object({ ports: Type.Array(SerialPortViewSchema) });
export type SerialPortsView = Static<typeof SerialPortsSchema>;
