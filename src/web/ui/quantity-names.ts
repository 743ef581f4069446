import { tOr } from './i18n/i18n.js';

/**
 * A quantity's name (the server's quantity table: "Active power import L1", "Energy import T2") in
 * the page's language: the base name from the catalogue (`quantity.<name>`), the phase or tariff
 * suffix kept; a name the catalogue lacks stays as the server sent it.
 */
export function quantityName(name: string): string {
  const [, base, suffix] = /^(.*?)((?: (?:L[1-3]|T[12]))?)$/.exec(name) ?? [name, name, ''];
  return `${tOr(`quantity.${base}`, base!)}${suffix}`;
}
