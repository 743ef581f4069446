/**
 * The sources the configuration store loads below the state files: the admin's JSON file (with
 * the line and column of a syntax error) and the METER_GATEWAY_* environment variables, each parsed
 * by its leaf's format (docs/architecture.md#configuration).
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.js';
import { formatNamed } from './formats.js';
import { envNameOf, LEAVES, setPath } from './paths.js';

/** An environment string parsed by the leaf's format; unparseable text stays text and fails validation. */
function parseEnvValue(format: string, text: string): unknown {
  const fromEnv = formatNamed(format)?.fromEnv;
  return fromEnv ? fromEnv(text) : text;
}

/** The METER_GATEWAY_* variables as a settings tree, and the names that match no setting. */
export function environmentTree(env: NodeJS.ProcessEnv): {
  tree: Record<string, unknown>;
  unknown: string[];
} {
  const tree: Record<string, unknown> = {};
  const byName = new Map([...LEAVES.values()].map((leaf) => [envNameOf(leaf.path), leaf]));
  const unknown: string[] = [];
  for (const [name, text] of Object.entries(env)) {
    if (!name.startsWith('METER_GATEWAY_') || text === undefined) continue;
    const leaf = byName.get(name);
    if (!leaf) unknown.push(name);
    else setPath(tree, leaf.path, parseEnvValue(leaf.format, text));
  }
  return { tree, unknown };
}

/** The admin's JSON config file (--config) as a tree; ConfigError when unreadable or no JSON object. */
export function readAdminFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, [
      { field: '', message: `cannot read config file: ${(error as Error).message}` },
    ]);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(path, [
      {
        field: '',
        message: `not a valid JSON config file: ${jsonErrorText(text, (error as Error).message)}`,
      },
    ]);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new ConfigError(path, [{ field: '', message: 'not a valid JSON config file: not a JSON object' }]);
  return data as Record<string, unknown>;
}

/**
 * JSON.parse's complaint with the line and column it points at (1-based, as editors count), worked
 * out from the character offset V8 reports (`at position N`; the end for an unexpected end).
 */
function jsonErrorText(text: string, message: string): string {
  const reported = /\(line (\d+) column (\d+)\)/.exec(message);
  const position = /at position (\d+)/.exec(message);
  let where: string | undefined;
  if (reported) where = `line ${reported[1]}, column ${reported[2]}`;
  else if (position || /end of JSON input/.test(message)) {
    const offset = Math.min(position ? Number(position[1]) : text.length, text.length);
    const before = text.slice(0, offset).split('\n');
    where = `line ${before.length}, column ${before.at(-1)!.length + 1}`;
  }
  const what = message.replace(/\s*\(line \d+ column \d+\)/, '').replace(/ in JSON at position \d+/, '');
  return where ? `${where}: ${what}` : what;
}
