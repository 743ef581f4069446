import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { requirePeer } from './environment.js';

/** Debian's python3 with PyYAML: a real YAML parser for the add-on files (python3-yaml). */
const PYTHON = '/usr/bin/python3';

function hasPyYaml(): boolean {
  return existsSync(PYTHON) && spawnSync(PYTHON, ['-c', 'import yaml'], { stdio: 'ignore' }).status === 0;
}

/**
 * The YAML file parsed by PyYAML's safe loader (the loader the Supervisor's own YAML reading is
 * built on), as JSON; undefined (test skipped, or failed under CI) without python3-yaml.
 */
export function readYamlFile(t: TestContext, file: string): Record<string, unknown> | undefined {
  if (!requirePeer(t, hasPyYaml(), `${PYTHON} with PyYAML (python3-yaml)`)) return undefined;
  const json = execFileSync(
    PYTHON,
    ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', file],
    { encoding: 'utf8' },
  );
  return JSON.parse(json) as Record<string, unknown>;
}
