import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { getPath } from '../config/paths.js';
import { registerRules, type ConfigRule } from '../config/rules.js';
import type { ValidationIssue } from '../config/validation.js';
import type { MqttSettings } from '../config/types.js';
import { parseBrokerUrl } from './connection-options.js';
import { topicNameProblem } from './topic-name.js';

/**
 * The MQTT settings' rules beyond types and lengths (docs/architecture.md#configuration): the
 * broker URL (mqtt:// or mqtts://, required while MQTT is on), the publish topic (MQTT 3.1.1
 * §4.7), and PEM material parsed by node:crypto. Registered at wiring time, they hold for every
 * writer: /api/v1/mqtt/settings, a backup restore, the admin's file and the environment.
 * Fields are relative to `mqtt.` here and prefixed when reported.
 */

function urlIssues(url: string, enable: boolean): ValidationIssue[] {
  if (url === '') return enable ? [{ field: 'url', message: 'is required when enable is true' }] : [];
  const parsed = parseBrokerUrl(url);
  // The value is not echoed: a rejected URL may carry user:password@.
  return parsed.ok ? [] : [{ field: 'url', message: parsed.reason }];
}

function topicIssues(topic: string): ValidationIssue[] {
  const problem = topicNameProblem(topic);
  return problem === undefined ? [] : [{ field: 'publish.topic', message: problem, value: topic }];
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function certificateIssue(field: string, pem: string): ValidationIssue | undefined {
  const blocks = pem.match(PEM_CERTIFICATE);
  if (!blocks)
    return {
      field,
      message: 'is not a PEM certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)',
    };
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (error) {
      return { field, message: `is not a valid X.509 certificate: ${(error as Error).message}` };
    }
  }
  return undefined;
}

function keyIssue(pem: string, passphrase: string): { key?: KeyObject; issue?: ValidationIssue } {
  if (!pem.includes('-----BEGIN'))
    return { issue: { field: 'client.key', message: 'is not a PEM private key' } };
  // PKCS#8 "ENCRYPTED PRIVATE KEY" (RFC 5958 §3) or a legacy OpenSSL key with "Proc-Type: 4,ENCRYPTED".
  const encrypted =
    pem.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----') || pem.includes('Proc-Type: 4,ENCRYPTED');
  if (encrypted && passphrase === '') {
    return { issue: { field: 'client.key_password', message: 'is required: client.key is encrypted' } };
  }
  try {
    return {
      key: createPrivateKey({ key: pem, format: 'pem', ...(passphrase !== '' ? { passphrase } : {}) }),
    };
  } catch (error) {
    const message = (error as Error).message;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (encrypted || /passphrase|decrypt/i.test(message) || code === 'ERR_MISSING_PASSPHRASE') {
      return { issue: { field: 'client.key_password', message: `does not decrypt client.key: ${message}` } };
    }
    return { issue: { field: 'client.key', message: `is not a valid PEM private key: ${message}` } };
  }
}

function pemIssues(settings: MqttSettings): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const certificates = {
    'broker.certificate': settings.broker.certificate,
    'client.certificate': settings.client.certificate,
  };
  for (const [field, value] of Object.entries(certificates)) {
    if (value === '') continue;
    const issue = certificateIssue(field, value);
    if (issue) issues.push(issue);
  }
  const { certificate, key, key_password: passphrase } = settings.client;
  if ((certificate === '') !== (key === '')) {
    const missing = certificate === '' ? 'client.certificate' : 'client.key';
    return [...issues, { field: missing, message: 'client.certificate and client.key are needed together' }];
  }
  if (key === '' || issues.length > 0) return issues;
  const parsed = keyIssue(key, passphrase);
  if (parsed.issue) return [...issues, parsed.issue];
  let matches: boolean;
  try {
    matches = new X509Certificate(certificate).checkPrivateKey(parsed.key!);
  } catch (error) {
    const message = `is not a valid X.509 certificate: ${(error as Error).message}`;
    return [...issues, { field: 'client.certificate', message }];
  }
  if (!matches) issues.push({ field: 'client.key', message: 'does not belong to client.certificate' });
  return issues;
}

const MQTT_RULE: ConfigRule = {
  name: 'mqtt broker, topic and TLS material',
  watches: ['mqtt.enable', 'mqtt.url', 'mqtt.publish.topic', 'mqtt.broker', 'mqtt.client'],
  check(tree) {
    const settings = getPath(tree, 'mqtt') as MqttSettings;
    return [
      ...urlIssues(settings.url, settings.enable),
      ...topicIssues(settings.publish.topic),
      ...pemIssues(settings),
    ].map((issue) => ({ ...issue, field: `mqtt.${issue.field}` }));
  },
};

/** Registers the MQTT rules with the config checker; the daemon calls it before the config loads. */
export function registerMqttRules(): void {
  registerRules([MQTT_RULE]);
}
