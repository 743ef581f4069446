import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { repoRoot } from '../helpers/environment.js';
import { readYamlFile } from '../helpers/yaml.js';

/*
 * The add-on files checked against the rules the Home Assistant Supervisor applies when it reads an
 * add-on repository (home-assistant/supervisor: the app config, build config, translation and
 * repository schemas, and the option type grammar). The rules are restated here as facts from
 * that source, not its code. The Supervisor drops keys it does not know (REMOVE_EXTRA) and, for
 * build.yaml, replaces the whole file by its defaults when one value fails: both are silent for
 * the user, so this test refuses them.
 */

/** Architectures the Supervisor accepts: aarch64 and amd64; armhf, armv7 and i386 only as deprecated. */
const ARCH_SUPPORTED = ['aarch64', 'amd64'];
const ARCH_DEPRECATED = ['armhf', 'armv7', 'i386'];
const STARTUP = ['initialize', 'system', 'services', 'application', 'once'];
const BOOT = ['auto', 'manual', 'manual_only'];
const STAGE = ['stable', 'experimental', 'deprecated'];
const ROLES = ['default', 'homeassistant', 'backup', 'manager', 'admin'];
const BACKUP = ['hot', 'cold'];
const MAP_TYPES = [
  'data',
  'config',
  'ssl',
  'local_apps',
  'backup',
  'share',
  'media',
  'homeassistant_config',
  'all_app_configs',
  'app_config',
  'addons',
  'all_addon_configs',
  'addon_config',
];
/** Slug: one or more of `-_.A-Za-z0-9`. */
const SLUG = /^[-_.A-Za-z0-9]+$/;
/** A container port: digits with an optional /tcp or /udp. */
const DOCKER_PORT = /^\d+(?:\/tcp|\/udp)?$/;
const WATCHDOG = /^(?:https?|\[PROTO:\w+\]|tcp):\/\/\[HOST\]:(\[PORT:\d+\]|\d+).*$/;
const WEBUI = /^(?:https?|\[PROTO:\w+\]):\/\/\[HOST\]:\[PORT:\d+\].*$/;
const SERVICE = /^(?<service>mqtt|mysql):(?<rights>provide|want|need)$/;
/** The option type grammar of `schema` (a trailing `?` makes an option optional). */
const SCHEMA_ELEMENT = new RegExp(
  '^(?:|bool|email|url|port|device(?:\\((?<filter>subsystem=[a-z]+)\\))?' +
    '|str(?:\\((?<smin>\\d+)?,(?<smax>\\d+)?\\))?|password(?:\\((?<pmin>\\d+)?,(?<pmax>\\d+)?\\))?' +
    '|int(?:\\((?<imin>-?\\d+)?,(?<imax>-?\\d+)?\\))?' +
    '|float(?:\\((?<fmin>-?\\d*\\.?\\d+)?,(?<fmax>-?\\d*\\.?\\d+)?\\))?' +
    '|match\\((?<match>.*)\\)|list\\((?<list>.+)\\))\\??$',
);
/**
 * build_from: an image with a namespace and an optional tag, `[registry/]namespace/name[:tag]`
 * (`{arch}` placeholders allowed); a bare `node:22` has no namespace and is refused.
 */
const BUILD_IMAGE = /^([a-zA-Z\-.:\d{}]+\/)*?([-\w{}]+)\/([-\w{}]+)(:[.\-\w{}]+)?$/;
/** Range the Supervisor picks a dynamic ingress port from (ingress_port: 0). */
const DYNAMIC_INGRESS = [62000, 65500];

/** Keys of the app config the Supervisor reads (every other key is dropped silently). */
const BOOLEAN_KEYS = [
  'init',
  'advanced',
  'ingress',
  'ingress_stream',
  'panel_admin',
  'host_network',
  'host_pid',
  'host_ipc',
  'host_uts',
  'host_dbus',
  'udev',
  'tmpfs',
  'apparmor',
  'full_access',
  'audio',
  'video',
  'gpio',
  'usb',
  'uart',
  'devicetree',
  'kernel_modules',
  'realtime',
  'hassio_api',
  'homeassistant_api',
  'stdin',
  'legacy',
  'docker_api',
  'auth_api',
  'journald',
];
const STRING_KEYS = [
  'name',
  'description',
  'url',
  'ingress_entry',
  'panel_icon',
  'panel_title',
  'backup_pre',
  'backup_post',
  'image',
  'homeassistant',
];
const OTHER_KEYS = [
  'version',
  'slug',
  'arch',
  'machine',
  'startup',
  'boot',
  'stage',
  'ports',
  'ports_description',
  'watchdog',
  'webui',
  'ingress_port',
  'devices',
  'map',
  'environment',
  'privileged',
  'hassio_role',
  'services',
  'discovery',
  'backup_exclude',
  'backup',
  'options',
  'schema',
  'ulimits',
  'timeout',
  'breaking_versions',
];
const KNOWN_KEYS = new Set([...BOOLEAN_KEYS, ...STRING_KEYS, ...OTHER_KEYS]);

type Yaml = Record<string, unknown>;
const isObject = (value: unknown): value is Yaml =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function networkPort(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535;
}

/** A `schema` entry: a type string, a one-element list of a type or a dict, or a dict of entries. */
function checkSchemaEntry(key: string, entry: unknown): void {
  if (typeof entry === 'string') {
    assert.match(entry, SCHEMA_ELEMENT, `schema.${key}: unknown option type`);
  } else if (Array.isArray(entry)) {
    for (const item of entry) {
      assert.ok(!Array.isArray(item), `schema.${key}: a list may not contain a list`);
      checkSchemaEntry(key, item);
    }
  } else {
    assert.ok(isObject(entry), `schema.${key}`);
    for (const [child, value] of Object.entries(entry)) checkSchemaEntry(`${key}.${child}`, value);
  }
}

/** A value against a simple option type, as the Supervisor checks options.json. */
function checkOption(key: string, type: string, value: unknown): void {
  const match = SCHEMA_ELEMENT.exec(type)!;
  const g = match.groups!;
  const bare = type.replace(/\?$/, '');
  const within = (n: number, min?: string, max?: string) =>
    (min === undefined || n >= Number(min)) && (max === undefined || n <= Number(max));
  if (bare.startsWith('str') || bare.startsWith('password')) {
    assert.equal(typeof value, 'string', key);
    assert.ok(within((value as string).length, g.smin ?? g.pmin, g.smax ?? g.pmax), key);
  } else if (bare.startsWith('int')) {
    assert.ok(Number.isInteger(value) && within(value as number, g.imin, g.imax), key);
  } else if (bare.startsWith('float')) {
    assert.ok(typeof value === 'number' && within(value, g.fmin, g.fmax), key);
  } else if (bare === 'bool') assert.equal(typeof value, 'boolean', key);
  else if (bare === 'url') assert.ok(typeof value === 'string' && URL.canParse(value), key);
  else if (bare === 'port') assert.ok(networkPort(value), key);
  else if (bare.startsWith('list')) assert.ok(g.list!.split('|').includes(String(value)), key);
  else if (bare.startsWith('match')) assert.match(String(value), new RegExp(g.match!), key);
  else assert.equal(typeof value, 'string', key);
}

function checkPorts(config: Yaml): void {
  const ports = (config.ports ?? {}) as Yaml;
  assert.ok(isObject(ports), 'ports');
  for (const [port, host] of Object.entries(ports)) {
    assert.match(port, DOCKER_PORT, `ports: ${port}`);
    assert.ok(host === null || networkPort(host), `ports.${port}: null or 1..65535`);
  }
  for (const [port, text] of Object.entries((config.ports_description ?? {}) as Yaml)) {
    assert.match(port, DOCKER_PORT, `ports_description: ${port}`);
    assert.equal(typeof text, 'string', `ports_description.${port}`);
  }
  if (config.ingress === true && config.ingress_port === 0) {
    for (const port of Object.keys(ports)) {
      const number = Number(port.split('/')[0]);
      assert.ok(number < DYNAMIC_INGRESS[0]! || number > DYNAMIC_INGRESS[1]!, `${port} is reserved`);
    }
  }
}

function checkMap(config: Yaml): void {
  for (const entry of (config.map ?? []) as unknown[]) {
    if (typeof entry === 'string') {
      const [type, mode] = entry.split(':');
      assert.ok(MAP_TYPES.includes(type!) && (mode === undefined || ['rw', 'ro'].includes(mode)), entry);
    } else {
      assert.ok(isObject(entry) && MAP_TYPES.includes(entry.type as string), 'map entry type');
    }
  }
}

/** The app config schema: required keys, value types, enumerations and patterns. */
function checkAppConfig(config: Yaml): void {
  const unknown = Object.keys(config).filter((key) => !KNOWN_KEYS.has(key));
  assert.deepEqual(unknown, [], 'keys the Supervisor would drop');
  for (const key of ['name', 'version', 'slug', 'description', 'arch']) assert.ok(key in config, key);
  for (const key of STRING_KEYS)
    if (key in config) assert.equal(typeof config[key], 'string', `${key} is a string`);
  for (const key of BOOLEAN_KEYS)
    if (key in config) assert.equal(typeof config[key], 'boolean', `${key} is a boolean`);
  assert.ok(['string', 'number'].includes(typeof config.version), 'version');
  assert.match(config.slug as string, SLUG);
  assert.ok(Array.isArray(config.arch) && config.arch.length > 0, 'arch is a list');
  for (const arch of config.arch as string[])
    assert.ok([...ARCH_SUPPORTED, ...ARCH_DEPRECATED].includes(arch), `arch ${arch}`);
  if ('url' in config) assert.ok(URL.canParse(config.url as string), 'url');
  if ('startup' in config) assert.ok(STARTUP.includes(config.startup as string), 'startup');
  if ('boot' in config) assert.ok(BOOT.includes(config.boot as string), 'boot');
  if ('stage' in config) assert.ok(STAGE.includes(config.stage as string), 'stage');
  if ('backup' in config) assert.ok(BACKUP.includes(config.backup as string), 'backup');
  if ('hassio_role' in config) assert.ok(ROLES.includes(config.hassio_role as string), 'hassio_role');
  if ('watchdog' in config) assert.match(config.watchdog as string, WATCHDOG);
  if ('webui' in config) assert.match(config.webui as string, WEBUI);
  if ('ingress_port' in config)
    assert.ok(networkPort(config.ingress_port) || config.ingress_port === 0, 'ingress_port');
  if ('timeout' in config)
    assert.ok(Number.isInteger(config.timeout) && (config.timeout as number) >= 10, 'timeout 10..300');
  for (const service of (config.services ?? []) as string[]) assert.match(service, SERVICE);
  for (const [name, value] of Object.entries((config.environment ?? {}) as Yaml)) {
    assert.match(name, /^\w*$/);
    assert.equal(typeof value, 'string', `environment.${name}`);
  }
  checkPorts(config);
  checkMap(config);
}

/** options and schema: every entry a known type, every option value valid for its type. */
function checkOptions(config: Yaml): void {
  const options = (config.options ?? {}) as Yaml;
  const schema = (config.schema ?? {}) as Yaml;
  assert.ok(isObject(options) && isObject(schema), 'options and schema are mappings');
  for (const [key, entry] of Object.entries(schema)) checkSchemaEntry(key, entry);
  for (const [key, value] of Object.entries(options)) {
    assert.ok(key in schema, `option ${key} is not in the schema (the Supervisor drops it)`);
    if (typeof schema[key] === 'string') checkOption(key, schema[key], value);
  }
  for (const [key, type] of Object.entries(schema)) {
    if (typeof type === 'string' && !type.endsWith('?'))
      assert.ok(key in options, `required option ${key} needs a value in options`);
  }
}

const load = (t: TestContext, name: string) => readYamlFile(t, join(repoRoot, name));

test('config.yaml passes the Supervisor app config schema, with no deprecated architecture', (t) => {
  const config = load(t, 'config.yaml');
  if (!config) return;
  checkAppConfig(config);
  checkOptions(config);
  // Deprecated architectures are accepted with a warning, yet no Supervisor runs on them any more
  // (its machine table maps every board to aarch64 or amd64): none is offered.
  for (const arch of config.arch as string[])
    assert.ok(ARCH_SUPPORTED.includes(arch), `${arch} is deprecated`);
});

test('build.yaml passes the Supervisor build schema: namespaced base images for exactly the arches', (t) => {
  const config = load(t, 'config.yaml');
  const build = load(t, 'build.yaml');
  if (!config || !build) return;
  assert.deepEqual(
    Object.keys(build).filter((key) => !['build_from', 'squash', 'args', 'labels'].includes(key)),
    [],
  );
  const from = build.build_from as Yaml;
  assert.ok(isObject(from), 'build_from per architecture');
  assert.deepEqual(Object.keys(from).sort(), [...(config.arch as string[])].sort());
  for (const [arch, image] of Object.entries(from)) {
    assert.ok([...ARCH_SUPPORTED, ...ARCH_DEPRECATED].includes(arch), arch);
    assert.match(image as string, BUILD_IMAGE, `build_from.${arch}`);
  }
  for (const group of ['args', 'labels']) {
    for (const [key, value] of Object.entries((build[group] ?? {}) as Yaml))
      assert.equal(typeof value, 'string', `${group}.${key} is a string`);
  }
  // The Dockerfile's own default is the same image, so a build without build.yaml gets Node too.
  const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
  assert.match(
    dockerfile,
    new RegExp(`^ARG BUILD_FROM=${(from.amd64 as string).replaceAll('.', '\\.')}$`, 'm'),
  );
});

test('the rules refuse what the Supervisor refuses (the test can fail)', () => {
  assert.doesNotMatch('node:22-bookworm-slim', BUILD_IMAGE);
  assert.match('docker.io/library/node:22-bookworm-slim', BUILD_IMAGE);
  assert.match('ghcr.io/home-assistant/{arch}-base:latest', BUILD_IMAGE);
  assert.throws(() =>
    checkAppConfig({ name: 'x', version: '1', slug: 'x', description: 'd', arch: ['mips'] }),
  );
  assert.throws(() =>
    checkAppConfig({ name: 'x', version: '1', slug: 'x', description: 'd', arch: ['amd64'], uart: 'yes' }),
  );
  assert.throws(() => checkOptions({ options: { a: 5 }, schema: { a: 'int(1,4)' } }));
  assert.throws(() => checkOptions({ options: {}, schema: { a: 'str' } }));
  assert.throws(() => checkOptions({ options: {}, schema: { a: 'text?' } }));
  assert.throws(() => checkPorts({ ports: { '502/sctp': 502 } }));
});

/** Translation files: configuration.<option>.{name, description?, fields?} and network.<port>. */
function checkTranslation(file: string, data: Yaml, config: Yaml): void {
  const schema = config.schema as Yaml;
  const configuration = data.configuration as Yaml;
  assert.ok(isObject(configuration), `${file}: configuration`);
  assert.deepEqual(Object.keys(configuration).sort(), Object.keys(schema).sort(), `${file}: every option`);
  for (const [key, entry] of Object.entries(configuration)) {
    assert.ok(isObject(entry) && typeof entry.name === 'string' && entry.name !== '', `${file}: ${key}.name`);
    assert.ok(['string', 'undefined'].includes(typeof entry.description) || entry.description === null);
  }
  const network = (data.network ?? {}) as Yaml;
  assert.deepEqual(Object.keys(network).sort(), Object.keys(config.ports as Yaml).sort(), `${file}: ports`);
  for (const text of Object.values(network)) assert.equal(typeof text, 'string');
}

test('translations (en, de, fr, nl) name every option and port; logo, icon, changelog and docs exist', (t) => {
  const config = load(t, 'config.yaml');
  const repository = load(t, 'repository.yaml');
  if (!config || !repository) return;
  const files = readdirSync(join(repoRoot, 'translations')).sort();
  assert.deepEqual(files, ['de.yaml', 'en.yaml', 'fr.yaml', 'nl.yaml']);
  for (const file of files) {
    const data = load(t, join('translations', file));
    if (!data) return;
    checkTranslation(file, data, config);
  }
  // repository.yaml: name required; url and maintainer optional strings.
  assert.equal(typeof repository.name, 'string');
  if ('maintainer' in repository) assert.equal(typeof repository.maintainer, 'string');
  // The store shows icon.png (square, 128x128 recommended) and logo.png (about 250x100 recommended).
  assert.deepEqual(pngSize('icon.png'), [128, 128]);
  assert.deepEqual(pngSize('logo.png'), [250, 100]);
  assert.match(
    readFileSync(join(repoRoot, 'CHANGELOG.md'), 'utf8'),
    new RegExp(`^## ${config.version}`, 'm'),
  );
  assert.match(readFileSync(join(repoRoot, 'DOCS.md'), 'utf8'), /^# /);
});

/** Width and height from a PNG's IHDR chunk (PNG specification §11.2.2). */
function pngSize(name: string): [number, number] {
  const data = readFileSync(join(repoRoot, name));
  assert.equal(data.subarray(1, 4).toString('latin1'), 'PNG', `${name} is a PNG`);
  return [data.readUInt32BE(16), data.readUInt32BE(20)];
}
