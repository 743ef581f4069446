import { t, type MessageKey } from './i18n/i18n.js';

/**
 * The source of a further meter as a form (docs/architecture.md#meter-source): a kind picker and the
 * fields of that kind, read from and written back to the one source URI the API takes. A URI the
 * fields cannot say exactly (another parameter, another scheme) stays a URI field of its own, so
 * editing a meter never changes what it reads.
 */

export type SourceKind = 'serial' | 'modbus-tcp' | 'modbus-rtu' | 'homewizard' | 'shelly' | 'virtual' | 'uri';

/** The fields of every kind; the ones of the chosen kind are shown. */
export interface SourceFields {
  kind: SourceKind;
  path: string;
  protocol: string;
  /** A serial line's settings as the URI's parameters (`baud=115200&parity=none`), as a probe found them. */
  line: string;
  host: string;
  port: string;
  baud: string;
  profile: string;
  unit: string;
  uri: string;
  expression: string;
}

export const SOURCE_KINDS: Record<SourceKind, MessageKey> = {
  serial: 'meters.editor.kind_serial',
  'modbus-tcp': 'meters.editor.kind_modbus_tcp',
  'modbus-rtu': 'meters.editor.kind_modbus_rtu',
  homewizard: 'meters.editor.kind_homewizard',
  shelly: 'meters.editor.kind_shelly',
  virtual: 'meters.editor.kind_virtual',
  uri: 'meters.editor.kind_uri',
};

/**
 * The register maps a Modbus meter source reads (the profile catalogue's meter profiles, which the
 * browser code cannot import; test/web/meter-source-form.test.ts holds the two lists equal).
 */
export const PROFILES: Readonly<Record<string, string>> = {
  sdm630: 'Eastron SDM630',
  sdm120: 'Eastron SDM120',
  sdm72: 'Eastron SDM72',
  dtsu666: 'Chint DTSU666',
  sunspec: 'SunSpec (203)',
};

/** The protocols of a serial meter source; auto recognises DSMR, SML and IEC 62056-21. */
export const PROTOCOLS = ['auto', 'dsmr', 'sml', 'd0'] as const;

const EMPTY: SourceFields = {
  kind: 'uri',
  path: '',
  protocol: 'auto',
  line: '',
  host: '',
  port: '',
  baud: '9600',
  profile: 'sdm630',
  unit: '1',
  uri: '',
  expression: '',
};

/** The fields a new meter starts with: a Modbus TCP meter, the usual port and unit id. */
export function newSource(): SourceFields {
  return { ...EMPTY, kind: 'modbus-tcp', port: '502' };
}

/** The line settings a serial source takes (docs/architecture.md#meter-source), kept as written. */
const LINE_PARAMS = ['baud', 'databits', 'parity', 'stopbits'];

/** The query's parameters when every one is among `known`, else undefined (the URI stays a URI). */
function paramsOf(query: string, known: readonly string[]): URLSearchParams | undefined {
  const params = new URLSearchParams(query);
  return [...params.keys()].every((name) => known.includes(name)) ? params : undefined;
}

/** host[:port] (an IPv6 host in brackets) as its parts, or undefined when it has anything more. */
function hostPort(authority: string): { host: string; port: string } | undefined {
  const match = /^(\[[^\]]+\]|[^:/?#@[\]]+)(?::(\d{1,5}))?$/.exec(authority);
  if (!match) return undefined;
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port: match[2] ?? '' };
}

function split(rest: string): [string, string] {
  const at = rest.indexOf('?');
  return at < 0 ? [rest, ''] : [rest.slice(0, at), rest.slice(at + 1)];
}

/** The fields of a stored entry: its expression, or its source URI read back into the fields. */
export function fieldsOf(source: string | undefined, expression: string | undefined): SourceFields {
  if (expression !== undefined) return { ...EMPTY, kind: 'virtual', expression };
  const uri = source ?? '';
  const fields: SourceFields = { ...EMPTY, uri };
  if (uri.startsWith('serial:')) {
    const [path, query] = split(uri.slice('serial:'.length));
    const params = paramsOf(query, ['protocol', ...LINE_PARAMS]);
    const protocol = params?.get('protocol') ?? 'auto';
    if (params && (PROTOCOLS as readonly string[]).includes(protocol) && path.startsWith('/')) {
      params.delete('protocol');
      return { ...fields, kind: 'serial', path, protocol, line: params.toString() };
    }
  } else if (uri.startsWith('modbus-rtu:')) {
    const [path, query] = split(uri.slice('modbus-rtu:'.length));
    const params = paramsOf(query, ['unit', 'profile', 'baud']);
    if (params && path.startsWith('/'))
      return {
        ...fields,
        kind: 'modbus-rtu',
        path,
        unit: params.get('unit') ?? '1',
        profile: params.get('profile') ?? 'sdm630',
        baud: params.get('baud') ?? '9600',
      };
  } else if (uri.startsWith('modbus-tcp://')) {
    const [authority, query] = split(uri.slice('modbus-tcp://'.length));
    const params = paramsOf(query, ['unit', 'profile']);
    const where = hostPort(authority.replace(/\/$/, ''));
    if (params && where)
      return {
        ...fields,
        kind: 'modbus-tcp',
        ...where,
        port: where.port || '502',
        unit: params.get('unit') ?? '1',
        profile: params.get('profile') ?? 'sunspec',
      };
  } else {
    const dongle = /^(homewizard|shelly):\/\/([^?]*)$/.exec(uri);
    const where = dongle ? hostPort(dongle[2]!.replace(/\/$/, '')) : undefined;
    if (dongle && where) return { ...fields, kind: dongle[1] as 'homewizard' | 'shelly', ...where };
  }
  return fields;
}

function bracketed(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The source URI of the fields (the same URI the API takes in meters[].source). */
export function uriOf(fields: SourceFields): string {
  const trim = (value: string) => value.trim();
  switch (fields.kind) {
    case 'serial':
      return `serial:${trim(fields.path)}?protocol=${fields.protocol}${trim(fields.line) ? `&${trim(fields.line)}` : ''}`;
    case 'modbus-rtu':
      return `modbus-rtu:${trim(fields.path)}?unit=${trim(fields.unit)}&profile=${fields.profile}&baud=${trim(fields.baud)}`;
    case 'modbus-tcp':
      return `modbus-tcp://${bracketed(trim(fields.host))}:${trim(fields.port) || '502'}?unit=${trim(fields.unit)}&profile=${fields.profile}`;
    case 'homewizard':
    case 'shelly': {
      const port = trim(fields.port);
      return `${fields.kind}://${bracketed(trim(fields.host))}${port ? `:${port}` : ''}`;
    }
    case 'virtual':
      return '';
    case 'uri':
      return trim(fields.uri);
  }
}

/** The fields each kind shows, in order. */
export const FIELDS_OF: Record<SourceKind, ReadonlyArray<keyof SourceFields>> = {
  serial: ['path', 'protocol', 'line'],
  'modbus-tcp': ['host', 'port', 'profile', 'unit'],
  'modbus-rtu': ['path', 'baud', 'profile', 'unit'],
  homewizard: ['host', 'port'],
  shelly: ['host', 'port'],
  virtual: ['expression'],
  uri: ['uri'],
};

/** The label of a field, by the kind it is shown for (a path is a port or an RS485 adapter). */
export function labelOf(field: keyof SourceFields, kind: SourceKind): string {
  if (field === 'path') return t(kind === 'modbus-rtu' ? 'meters.editor.device' : 'meters.editor.port');
  const keys: Record<Exclude<keyof SourceFields, 'path'>, MessageKey> = {
    kind: 'meters.editor.kind',
    protocol: 'meters.editor.protocol',
    line: 'meters.editor.line',
    host: 'meters.editor.host',
    port: 'meters.editor.tcp_port',
    baud: 'meters.editor.baud',
    profile: 'meters.editor.profile',
    unit: 'meters.editor.unit',
    uri: 'meters.editor.uri',
    expression: 'meters.editor.expression',
  };
  return t(keys[field]);
}
