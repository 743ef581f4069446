// The two tiers of the test suite (README "Tests", docs/architecture.md#test-tiers), in one place.
//
// fast tier: everything NOT listed below: unit and logic tests, loopback-only quick tests with an
//   in-process server, short peers (mosquitto, socat, pymodbus) that answer within a second or two.
//   `npm run test:fast` runs it alone for the edit-test loop.
// system tier: the files listed below. A file belongs here when its tests start the daemon as a
//   child process, Chromium, podman or install.sh, kill processes (SIGKILL loops), run tens of
//   thousands of generated inputs (fuzzing), or wait on a real peer or on real time for seconds. test/architecture/test-tiers.test.ts keeps every file
//   that imports the Chromium, container or daemon-process helpers in this list, and every entry
//   naming an existing file.
//
// Entries are paths below test/ without the `.test.ts` ending; an entry ending in `/` takes a folder.
// Both tiers start their files in path order: node's test runner sorts the files it is given (the
// order of this list is not the order of the run; docs/architecture.md#test-tiers).

export const SYSTEM_TIER = [
  // Container image built with podman from the real Dockerfile.
  'container/',
  // install.sh on a scratch prefix, the update launcher.
  'device/install',
  'device/install-update',
  'device/update/launcher',
  // SIGKILL loops and restarts of the daemon process.
  'history/sigkill',
  'config/atomic-file',
  'config/settings-durability',
  'actions/definition-durability',
  'peak/restart',
  'prices/daemon',
  'prices/daemon-hostile',
  'mqtt/discovery-lifecycle',
  'mqtt/restart-process',
  // Chromium pages (test/helpers/file-browser.ts, test/web/page-rig.ts).
  'architecture/page-shard',
  'web/languages',
  'web/dashboard',
  'web/status-pages',
  'web/phone-layout',
  'web/actions-page',
  'web/addresses',
  'web/addon-locks',
  'web/consumers-settings',
  'web/costs-page',
  'web/info-push',
  'web/dashboard-headline',
  'web/energy-explorer',
  'web/ethernet-page',
  'web/files-page',
  'web/firmware-upload',
  'web/ingress',
  'web/maintenance',
  'web/meter-page',
  'web/meters-page',
  'web/peak-pages',
  'web/limiter-page',
  'web/two-tabs',
  'web/prices-pages',
  'web/settings-forms',
  'web/apply-answers',
  'web/theme',
  'web/tools-pages',
  'web/wifi-page',
  // The daemon as a child process (test/helpers/daemon-process.ts).
  'cli/cli',
  'cli/health-check',
  'cli/state-lock',
  'daemon-isolation',
  'runtime/runner',
  // Wait on the runner's retries (1 s and up) of the outputs of each kind.
  'runtime/runner-modbus',
  'runtime/runner-meters',
  'runtime/runner-domain',
  'runtime/runner-device',
  'runtime/runner-mqtt',
  'daemon-hostile-input',
  'device/cloud-https-proxy',
  'device/wifi/interface-name',
  'homewizard/dongle-sources',
  'homewizard/whatwatt-routes',
  'http/hostile-bodies',
  'http/openapi-daemon',
  // The TypeScript compiler on a planted wrong route answer (about 15 s of CPU).
  'http/route-shape',
  'meter/modbus/daemon-modbus',
  'meter/scalers',
  'meters/meters-daemon',
  'metrics/metrics-endpoint',
  'metrics/prometheus-server',
  'outgoing-bounds',
  'system-id',
  // Generated-input runs: tens of thousands of fast-check cases or every split point of the corpus.
  'meter/d0/fuzz',
  'meter/d0/robustness',
  'meter/dsmr/fuzz',
  'meter/sml/fuzz',
  'modbus/fuzz',
  // Long real-time waits on real peers (ptys, pymodbus, mosquitto, mDNS, the network).
  'meter/transport/serial',
  'meter/transport/backoff',
  'meter/transport/remote',
  'meter/probe/probe',
  'meter/modbus/modbus-source',
  'meter/d0/session',
  'meters/rs485-bus',
  'modbus/rtu',
  'mqtt/discovery',
  'mqtt/tls',
  'device/mdns',
  'device/mdns-browse',
  'actions/modbus-write',
  'actions/triggers',
  'http/live',
  'log',
  'cli/config-checks',
  // The fleet push against real engines (VictoriaMetrics, InfluxDB), and its SIGKILL of the daemon.
  'push/victoria-metrics',
  'push/line-and-import',
  'push/sigkill',
  'push/minutes',
  'push/live-power',
  'mqtt/quarters',
  // Inverters that answer garbage or die mid-write: the Modbus master's real 2 s response timeout.
  'export-limiter/hostile-inverter',
  // The daemon process SIGKILLed while it limits a simulated inverter (real time until the kill).
  'export-limiter/sigkill',
  // An inverter on RS485 over a socat pty pair (real serial timing).
  'export-limiter/modbus-rtu',
];

/**
 * The system tier's page files (Chromium pages: test/helpers/file-browser.ts, test/web/page-rig.ts)
 * run in a few shared processes, each with one browser its files share (scripts/test-shard.mjs),
 * instead of a process and a browser per file. Like the fast tier's shards, they follow the shard
 * rules (no top-level before, beforeEach or afterEach; test/architecture/test-tiers.test.ts).
 */
export const PAGE_FOLDER = 'web/';

/** True for a system-tier file that runs in a page shard. */
export function isPageFile(path) {
  return tierOf(path) === 'system' && testId(path).startsWith(PAGE_FOLDER);
}

/** The path of a test file below test/ (or dist/test/) without its `.test.ts`/`.test.js` ending. */
export function testId(path) {
  const below = path.replace(/\\/g, '/').replace(/^.*?(?:^|\/)test\//, '');
  return below.replace(/\.test\.[cm]?[jt]s$/, '');
}

/** True when the entry names the file (exactly) or a folder holding it. */
export function entryMatches(entry, id) {
  return entry.endsWith('/') ? id.startsWith(entry) : id === entry;
}

/** 'system' for a file of the list above, 'fast' for every other test file. */
export function tierOf(path) {
  const id = testId(path);
  return SYSTEM_TIER.some((entry) => entryMatches(entry, id)) ? 'system' : 'fast';
}
