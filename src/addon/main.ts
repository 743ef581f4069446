#!/usr/bin/env node
/**
 * Start of the Home Assistant add-on (the image's entry point runs it when /data/options.json
 * exists): writes the daemon's config file from the add-on options and the Supervisor's MQTT
 * service, then the entry point starts the daemon on it.
 *   node dist/src/addon/main.js --options /data/options.json --out FILE
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { boundedRequest } from '../outgoing.js';
import { addonConfig, type AddonOptions, type SupervisorMqtt } from './options.js';

/** Supervisor REST API, reachable from add-ons with hassio_api or a service dependency. */
const SUPERVISOR = 'http://supervisor';

async function supervisorData<T>(path: string): Promise<T | undefined> {
  const token = process.env.SUPERVISOR_TOKEN;
  if (!token) return undefined;
  try {
    // got, the project's HTTP client, loaded only here (the add-on's start, before the daemon).
    const { got } = await import('got');
    // Bounded like every outgoing request (docs/architecture.md#hostile-input).
    const response = await boundedRequest(got, `${SUPERVISOR}${path}`, {
      headers: { Authorization: `Bearer ${token}` },
      timeout: { request: 10_000 },
    });
    if (response.cut) throw new Error('answer too large');
    const body = JSON.parse(response.body.toString('utf8')) as {
      result?: string;
      data?: T;
      message?: string;
    };
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    if (ok && body.result === 'ok') return body.data;
    process.stderr.write(`add-on: Supervisor ${path}: ${body.message ?? `HTTP ${response.statusCode}`}\n`);
  } catch (error) {
    process.stderr.write(`add-on: Supervisor ${path}: ${(error as Error).message}\n`);
  }
  return undefined;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { options: { type: 'string' }, out: { type: 'string' } },
    strict: true,
  });
  if (!values.options || !values.out) throw new Error('usage: main.js --options FILE --out FILE');
  const options = JSON.parse(readFileSync(values.options, 'utf8')) as AddonOptions;
  // The broker is asked for only when the user has not set one (services: mqtt:want).
  const mqtt = options.mqtt_url ? undefined : await supervisorData<SupervisorMqtt>('/services/mqtt');
  const self = await supervisorData<{ slug?: string }>('/addons/self/info');
  const config = addonConfig(options, mqtt, self?.slug);
  // The file holds the HTTP and MQTT passwords: readable by the daemon's user only.
  writeFileSync(values.out, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  const broker = options.mqtt_url ? 'the configured broker' : mqtt ? `${mqtt.host}:${mqtt.port}` : 'none';
  // The Supervisor sets TZ to Home Assistant's time zone in every add-on's environment.
  const zone = process.env.TZ ?? 'UTC (TZ not set)';
  const locked = String((config.addon as { locked: string }).locked).replaceAll(',', ', ');
  process.stderr.write(`add-on: config written, MQTT broker ${broker}, time zone ${zone}\n`);
  process.stderr.write(`add-on: settings locked by the options: ${locked}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`add-on: ${(error as Error).message}\n`);
  process.exit(1);
});
