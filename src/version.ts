import { readFileSync } from 'node:fs';

/** Version of the running app, from its package.json (dist/src/.. or src/.. both reach it). */
export const VERSION: string = (() => {
  for (const candidate of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'meter-gateway' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
})();
