import type { MeterRole } from '../../contracts/values.js';
import type { DiscoveredDongle, MeterTestAnswer } from '../../contracts/meters.js';
import type { ProbeResultView } from '../../contracts/probe.js';
import type { SerialPortView } from '../../contracts/status.js';
import { api, ApiError, element } from './api.js';
import { formatNumber } from './format.js';
import { issueText } from './forms.js';
import { t, tOr, tServer } from './i18n/i18n.js';
import {
  FIELDS_OF,
  fieldsOf,
  labelOf,
  newSource,
  PROFILES,
  PROTOCOLS,
  SOURCE_KINDS,
  uriOf,
  type SourceFields,
  type SourceKind,
} from './meter-source-form.js';
import { roleName } from './meters.js';

/**
 * Settings > Meter, further meters (docs/architecture.md#several-meters): one labelled form per
 * entry of `meters` (id, name, role, the source by its kind and fields, the timeout), saved with
 * PUT /api/v1/settings. The source's fields build the source URI the API takes
 * (meter-source-form.ts); the serial ports present (GET /api/v1/serial/ports) are offered for the
 * serial and RS485 kinds, the other meters' ids for a virtual meter's expression. "Test this
 * source" asks POST /api/v1/meters/test and shows the first reading or the error beside the form.
 */

interface Entry {
  id: string;
  name: string;
  role: string;
  source?: string;
  timeout?: number;
  expression?: string;
}

/** The source's fields a control edits as text: all but the kind (its own select). */
type TextField = Exclude<keyof SourceFields, 'kind'>;

/** What the forms offer beside the typed fields: the serial ports and the meter ids. */
interface Offers {
  ports: readonly SerialPortView[];
  ids: () => string[];
}

let serial = 0;

/**
 * The roles of the meters contract in the select's order. A record over the contract's role type,
 * so a role added to or dropped from the contract fails to compile here instead of going missing.
 */
const ROLE_ORDER: Record<MeterRole, number> = {
  grid: 0,
  pv: 1,
  battery: 2,
  ev: 3,
  heat_pump: 4,
  consumer: 5,
  other: 6,
};
const ROLES = (Object.keys(ROLE_ORDER) as MeterRole[]).sort((a, b) => ROLE_ORDER[a] - ROLE_ORDER[b]);

function button(text: string, onClick: () => void): HTMLButtonElement {
  const made = document.createElement('button');
  made.type = 'button';
  made.textContent = text;
  made.addEventListener('click', onClick);
  return made;
}

function options(
  field: HTMLSelectElement,
  choices: ReadonlyArray<[value: string, label: string]>,
  value: string,
) {
  field.replaceChildren(...choices.map(([key, label]) => new Option(label, key, false, key === value)));
  // A stored value the list does not offer stays chosen (a port unplugged right now).
  if (value !== '' && !choices.some(([key]) => key === value))
    field.append(new Option(value, value, false, true));
}

/** A select offering the choices, `value` chosen. */
function select(choices: ReadonlyArray<[value: string, label: string]>, value: string): HTMLSelectElement {
  const field = document.createElement('select');
  options(field, choices, value);
  return field;
}

/** A control with its label (`<label for>`), wrapped in a block the kind shows or hides. */
function labelled(prefix: string, name: string, text: string, control: HTMLElement): HTMLElement {
  const id = `${prefix}-${name}`;
  control.id = id;
  control.setAttribute('name', name);
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = text;
  const block = document.createElement('div');
  block.className = 'meter-field';
  block.dataset.field = name;
  block.append(label, control);
  return block;
}

function textInput(value: string, type = 'text'): HTMLInputElement {
  const field = document.createElement('input');
  field.type = type;
  field.value = value;
  return field;
}

/** The control of a source field: a select for ports, protocols and profiles, else an input. */
function sourceControl(name: keyof SourceFields, fields: SourceFields, offers: Offers): HTMLElement {
  if (name === 'path') {
    // The ports found are offered; any device path may be typed (a port the list does not know).
    const field = textInput(fields.path);
    field.placeholder = offers.ports.length === 0 ? t('meters.editor.no_port') : '/dev/ttyUSB0';
    field.setAttribute('list', 'meters-ports');
    return field;
  }
  if (name === 'protocol') {
    const labels: Record<(typeof PROTOCOLS)[number], string> = {
      auto: t('meters.editor.protocol_auto'),
      dsmr: 'DSMR (P1)',
      sml: 'SML',
      d0: 'IEC 62056-21',
    };
    return select(
      PROTOCOLS.map((protocol) => [protocol, labels[protocol]]),
      fields.protocol,
    );
  }
  if (name === 'profile') return select(Object.entries(PROFILES), fields.profile);
  const numeric = name === 'port' || name === 'unit' || name === 'baud';
  const input = textInput(fields[name], numeric ? 'number' : 'text');
  if (name === 'uri') input.placeholder = 'modbus-tcp://192.0.2.10:502?unit=1&profile=sunspec';
  if (name === 'expression') input.placeholder = t('meters.editor.expression_hint');
  return input;
}

/** The expression builder's "insert a meter id": the other meters' ids, added at the end. */
function idInserter(
  prefix: string,
  expression: HTMLInputElement,
  offers: Offers,
  own: () => string,
): HTMLElement {
  const picker = document.createElement('select');
  const fill = () =>
    options(
      picker,
      [
        ['', '…'],
        ...offers
          .ids()
          .filter((id) => id !== '' && id !== own())
          .map((id): [string, string] => [id, id]),
      ],
      '',
    );
  fill();
  picker.addEventListener('focus', fill);
  picker.addEventListener('change', () => {
    if (!picker.value) return;
    const text = expression.value.trim();
    expression.value = text === '' ? picker.value : `${text} + ${picker.value}`;
    picker.value = '';
    expression.dispatchEvent(new Event('input', { bubbles: true }));
  });
  return labelled(prefix, 'insert', t('meters.editor.insert'), picker);
}

/** The source's fields of every kind, in the form's order; the chosen kind shows its own. */
const SOURCE_FIELDS = [
  'path',
  'protocol',
  'line',
  'host',
  'port',
  'baud',
  'profile',
  'unit',
  'uri',
  'expression',
] as const satisfies readonly TextField[];

/** A row's source: its kind, the fields of every kind and the URI they build. */
interface SourceEditor {
  kind: HTMLSelectElement;
  blocks: HTMLElement[];
  /** The URI the fields build, shown under them. */
  built: HTMLOutputElement;
  chosen(): SourceKind;
  control(field: TextField): HTMLInputElement;
  /** The URI to store. */
  uri(): string;
  /** Sets the kind and every field (a source the probe found). */
  fill(fields: SourceFields): void;
  /** Shows the chosen kind's fields with its labels, and the URI they build. */
  show(): void;
}

function sourceEditor(prefix: string, entry: Entry, stored: SourceFields, offers: Offers): SourceEditor {
  const storedUri = uriOf(stored);
  const kind = select(
    Object.entries(SOURCE_KINDS).map(([value, key]) => [value, t(key)]),
    stored.kind,
  );
  const controls = new Map<TextField, HTMLElement>();
  const blocks = SOURCE_FIELDS.map((field) => {
    const control = sourceControl(field, stored, offers);
    controls.set(field, control);
    return labelled(prefix, field, labelOf(field, stored.kind), control);
  });
  const built = document.createElement('output');
  built.className = 'meter-uri muted';
  built.translate = false;
  const control = (field: TextField) => controls.get(field) as HTMLInputElement;
  const chosen = () => kind.value as SourceKind;
  const current = (): SourceFields => {
    const fields = { ...stored, kind: chosen() };
    for (const [field, element] of controls) fields[field] = (element as HTMLInputElement).value;
    return fields;
  };
  /** The stored URI while the fields still say the same (no needless restart). */
  const uri = (): string => {
    const made = uriOf(current());
    return made === storedUri && entry.source !== undefined ? entry.source : made;
  };
  return {
    kind,
    blocks,
    built,
    chosen,
    control,
    uri,
    fill(fields) {
      kind.value = fields.kind;
      for (const [field, element] of controls) (element as HTMLInputElement).value = fields[field];
    },
    show() {
      const shown = chosen();
      for (const block of blocks) {
        const field = block.dataset.field as keyof SourceFields;
        block.hidden = !FIELDS_OF[shown].includes(field);
        block.querySelector('label')!.textContent = labelOf(field, shown);
      }
      const port = control('port');
      if (shown === 'modbus-tcp' && port.value === '') port.value = '502';
      built.hidden = shown === 'virtual' || shown === 'uri';
      built.textContent = t('meters.editor.built', { uri: uri() });
    },
  };
}

/** A dongle as the picker names it: name, product, host, and the port unless it is 80. */
function dongleLabel(dongle: DiscoveredDongle): string {
  return `${dongle.name} · ${dongle.product} · ${dongle.host}${dongle.port === 80 ? '' : `:${dongle.port}`}`;
}

/**
 * "Find on the network": the dongles an mDNS browse found, offered in a picker (`found`); `listed`
 * runs when a browse ended, `use` with the dongle picked.
 */
function dongleFinder(
  prefix: string,
  result: HTMLOutputElement,
  listed: () => void,
  use: (dongle: DiscoveredDongle) => void,
) {
  const picker = document.createElement('select');
  const found = labelled(prefix, 'found', t('meters.discover.pick'), picker);
  let dongles: DiscoveredDongle[] = [];
  const find = button(t('meters.discover.find'), () => {
    find.disabled = true;
    void discoverDongles(result)
      .then((list) => {
        dongles = list;
        options(
          picker,
          [
            ['', t('meters.discover.choose')],
            ...list.map((dongle, index): [string, string] => [String(index), dongleLabel(dongle)]),
          ],
          '',
        );
        if (list.length === 0) picker.replaceChildren();
        listed();
      })
      .finally(() => (find.disabled = false));
  });
  picker.addEventListener('change', () => {
    const dongle = dongles[Number(picker.value)];
    if (picker.value === '' || !dongle) return;
    use(dongle);
  });
  return { find, found, empty: () => picker.options.length === 0 };
}

/**
 * A row's checks of its source, their outcome in one output (`result`): "Test this source" (every
 * kind but virtual), "Probe this port" (serial) and "Find on the network" (HomeWizard, Shelly).
 */
function sourceChecks(prefix: string, source: SourceEditor, show: () => void) {
  const result = document.createElement('output');
  result.className = 'meter-test';
  result.setAttribute('aria-live', 'polite');
  const test = button(t('meters.test'), () => void testSource(source.uri(), result));
  const probe = button(t('meters.editor.probe'), () => {
    const device = source.control('path').value.trim();
    // The source found fills the form; its kind may turn to a URI when the fields cannot say it.
    void probePort(device, result, (found) => {
      source.fill(fieldsOf(found, undefined));
      show();
    });
  });
  // Picking a dongle fills its kind, host and port.
  const finder = dongleFinder(prefix, result, show, (dongle) => {
    source.kind.value = dongle.kind;
    source.control('host').value = dongle.host;
    source.control('port').value = dongle.port === 80 ? '' : String(dongle.port);
    show();
  });
  return {
    buttons: [test, probe, finder.find, finder.found],
    result,
    showFor(kind: SourceKind) {
      test.hidden = kind === 'virtual';
      probe.hidden = kind !== 'serial';
      finder.find.hidden = kind !== 'homewizard' && kind !== 'shelly';
      finder.found.hidden = finder.find.hidden || finder.empty();
    },
  };
}

/** One meter's form: id, name, role, the source, the timeout, the checks and "Remove". */
function rowOf(entry: Entry, offers: Offers, initial?: SourceFields): HTMLElement {
  const prefix = `meter-${++serial}`;
  const row = document.createElement('fieldset');
  row.className = 'meter-entry';
  const legend = document.createElement('legend');
  const id = textInput(entry.id);
  const name = textInput(entry.name);
  const role = select(
    ROLES.map((value) => [value, roleName(value)]),
    entry.role,
  );
  const timeout = textInput(entry.timeout === undefined ? '' : String(entry.timeout), 'number');
  const timeoutBlock = labelled(prefix, 'timeout', t('meters.timeout'), timeout);
  const source = sourceEditor(prefix, entry, initial ?? fieldsOf(entry.source, entry.expression), offers);
  const inserter = idInserter(prefix, source.control('expression'), offers, () => id.value);
  const show = () => {
    const chosen = source.chosen();
    source.show();
    inserter.hidden = chosen !== 'virtual';
    timeoutBlock.hidden = chosen === 'virtual';
    checks.showFor(chosen);
    legend.textContent = id.value || t('meters.editor.new');
  };
  const checks = sourceChecks(prefix, source, show);
  row.addEventListener('input', show);
  row.addEventListener('change', show);
  row.append(
    legend,
    labelled(prefix, 'id', t('meters.id'), id),
    labelled(prefix, 'name', t('meters.name'), name),
    labelled(prefix, 'role', t('meters.editor.role'), role),
    labelled(prefix, 'kind', t('meters.editor.kind'), source.kind),
    ...source.blocks,
    inserter,
    timeoutBlock,
    source.built,
    ...checks.buttons,
    button(t('meters.remove'), () => row.remove()),
    checks.result,
  );
  (row as HTMLElement & { entry?: () => Entry }).entry = () => {
    const base: Entry = { id: id.value.trim(), name: name.value, role: role.value };
    if (source.chosen() === 'virtual') return { ...base, expression: source.control('expression').value };
    return {
      ...base,
      source: source.uri(),
      ...(timeout.value === '' ? {} : { timeout: Number(timeout.value) }),
    };
  };
  show();
  return row;
}

/** Failed request text: the server's message in the page's language, the fields it names after it. */
function failureText(error: unknown): string {
  if (!(error instanceof ApiError)) return (error as Error).message;
  return [error.text, ...error.fields.map(issueText)].join('; ');
}

/**
 * "Probe this port": POST /api/v1/meter/probe tries the usual line settings and protocols (up to
 * 30 s); the source it recognises fills the form, the outcome shows beside it.
 */
async function probePort(
  device: string,
  result: HTMLOutputElement,
  use: (source: string) => void,
): Promise<void> {
  result.className = 'meter-test';
  result.textContent = t('settings.probing');
  try {
    const answer = await api<ProbeResultView>('POST', '/api/v1/meter/probe', { device });
    if (answer.source) {
      use(answer.source);
      result.textContent = t('meters.editor.probe_found', {
        protocol: answer.meterProtocol ?? '',
        source: answer.source,
      });
    } else {
      result.className = 'meter-test error';
      result.textContent = t('meters.editor.probe_none', {
        status: tOr(`meter_status.${answer.status}`, answer.status),
      });
    }
  } catch (error) {
    result.className = 'meter-test error';
    result.textContent = failureText(error);
  }
}

/** GET /api/v1/meters/discover (a browse of a few seconds); the outcome shows beside the form. */
async function discoverDongles(result: HTMLOutputElement): Promise<DiscoveredDongle[]> {
  result.className = 'meter-test';
  result.textContent = t('meters.discover.searching');
  try {
    const list = await api<DiscoveredDongle[]>('GET', '/api/v1/meters/discover');
    result.textContent =
      list.length === 0 ? t('meters.discover.none') : t('meters.discover.found', { count: list.length });
    return list;
  } catch (error) {
    result.className = 'meter-test error';
    result.textContent = failureText(error);
    return [];
  }
}

async function testSource(source: string, result: HTMLOutputElement): Promise<void> {
  result.textContent = t('meters.testing');
  result.className = 'meter-test';
  try {
    const answer = await api<MeterTestAnswer>('POST', '/api/v1/meters/test', { source, wait: 10 });
    if (!answer.ok) {
      result.className = 'meter-test error';
      result.textContent = t('meters.no_reading', {
        status: answer.status,
        error: tServer(answer.error, answer.error_key, answer.error_args),
      });
      return;
    }
    const active = answer.report.instantaneous_power?.active;
    const power = (active?.positive?.total ?? 0) - (active?.negative?.total ?? 0);
    result.textContent = t('meters.first_reading', {
      status: answer.meter.status,
      power: formatNumber(power, 3),
    });
  } catch (error) {
    result.className = 'meter-test error';
    result.textContent = failureText(error);
  }
}

function entryOf(row: HTMLElement): Entry {
  return (row as HTMLElement & { entry: () => Entry }).entry();
}

/** Binds the editor; returns the loader the meter tab runs when it opens. */
export function bindMetersSettings(): () => Promise<void> {
  const form = element<HTMLFormElement>('form-meters');
  const rows = element('meters-rows');
  const status = form.querySelector<HTMLOutputElement>('.form-status')!;
  const add = element<HTMLButtonElement>('meters-add');
  const offers: { ports: SerialPortView[]; ids: () => string[] } = {
    ports: [],
    ids: () => [
      'main',
      ...[...rows.querySelectorAll<HTMLElement>('.meter-entry')].map((row) => entryOf(row).id),
    ],
  };
  add.addEventListener('click', () => {
    const row = rowOf({ id: '', name: '', role: 'pv' }, offers, newSource());
    rows.append(row);
    row.querySelector<HTMLInputElement>('[name=id]')!.focus();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const meters = [...rows.querySelectorAll<HTMLElement>('.meter-entry')].map(entryOf);
    status.textContent = '';
    api('PUT', '/api/v1/settings', { meters })
      .then(() => (status.textContent = t('meters.saved')))
      .catch((error: Error) => {
        // The API names the entry and field (`meters[1].id: "pv" is already the id of meters[0]`).
        const fields = error instanceof ApiError ? error.fields.map(issueText) : [];
        status.textContent =
          fields.length > 0 ? fields.join('; ') : error instanceof ApiError ? error.text : error.message;
      });
  });
  return async () => {
    // A row added while the stored list is still loading would be replaced by it: no adding until then.
    add.disabled = true;
    const [settings, ports] = await Promise.all([
      api<{ meters?: Entry[] }>('GET', '/api/v1/settings'),
      api<{ ports: SerialPortView[] }>('GET', '/api/v1/serial/ports').catch(() => ({ ports: [] })),
    ]);
    offers.ports = ports.ports;
    element('meters-ports').replaceChildren(...ports.ports.map((port) => new Option(port.path, port.path)));
    rows.replaceChildren(...(settings.meters ?? []).map((entry) => rowOf(entry, offers)));
    add.disabled = false;
  };
}
