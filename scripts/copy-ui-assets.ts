/**
 * Build step of the web interface (after `tsc -p src/web/ui`): copies the page and its style sheet
 * beside the compiled scripts in dist/src/web/ui, and the chart library's distribution files
 * (uPlot, MIT, with its licence) into dist/src/web/ui/vendor, so the daemon serves everything from
 * its own package: no CDN, works on a LAN without internet.
 */
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

const root = projectRoot();
const source = join(root, 'src', 'web', 'ui');
const target = join(root, 'dist', 'src', 'web', 'ui');
const uplot = dirname(createRequire(import.meta.url).resolve('uplot/package.json'));

const copies: Array<[from: string, to: string]> = [
  [join(source, 'index.html'), join(target, 'index.html')],
  [join(source, 'style.css'), join(target, 'style.css')],
  [join(source, 'theme.css'), join(target, 'theme.css')],
  [join(uplot, 'dist', 'uPlot.iife.min.js'), join(target, 'vendor', 'uplot.min.js')],
  [join(uplot, 'dist', 'uPlot.min.css'), join(target, 'vendor', 'uplot.min.css')],
  [join(uplot, 'LICENSE'), join(target, 'vendor', 'uplot.LICENSE')],
];
/** The copy is as new as the source and as long: a rebuild leaves it alone. */
function upToDate(from: string, to: string): boolean {
  if (!existsSync(to)) return false;
  const [source, copy] = [statSync(from), statSync(to)];
  return copy.size === source.size && copy.mtimeMs >= source.mtimeMs;
}

let copied = 0;
for (const [from, to] of copies) {
  if (upToDate(from, to)) continue;
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
  copied += 1;
}
console.log(`web interface: ${copied} of ${copies.length} files copied to ${target}`);
