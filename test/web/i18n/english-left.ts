import { en } from '../../../src/web/ui/i18n/en/index.js';
import type { Messages } from '../../../src/web/ui/i18n/i18n.js';

/**
 * Words that are English and nothing else in German, French or Dutch (so neither a translation nor
 * a product or unit name uses them): a text outside the catalogue that contains one is English
 * someone wrote into the page. Words the other languages share (Dutch "week", "meter", French
 * "actions", German "Name", "Status") are deliberately absent.
 */
export const ENGLISH_WORDS = new Set(
  (
    'the and with from this that these those your you are was were been has have will would should ' +
    'could which what where there please save saved saving delete deleted show shown refresh settings ' +
    'setting reading readings power energy today yesterday network password connected unknown none ' +
    'every after before since into than only failed loading enabled disabled remove add run now last ' +
    'next previous error errors warning warnings found restart restore download upload choose select ' +
    'available unavailable current voltage day month year hour hours minutes seconds yes set use using ' +
    'new time all history dashboard files requests request value values changed grid tariff mean ' +
    'balanced importing exporting forget reboot key keys private default custom address addresses ' +
    'ports device probe probing channel size modified uptime memory license vendor counters published ' +
    'queued running stopped waiting listening idle configured retrying busy events received up'
  ).split(' '),
);

/** `{name}` placeholders of a catalogue text as a pattern that matches the text with any values. */
function templatePattern(text: string): RegExp | undefined {
  if (!text.includes('{')) return undefined;
  const literal = text.replace(/\{\w+\}/g, '');
  if ((literal.match(/\p{L}/gu) ?? []).length < 4) return undefined; // too little to recognise
  const parts = text.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.+?')}$`, 's');
}

export interface Finding {
  text: string;
  why: string;
}

/**
 * The visible texts of a page in `language` that are English: equal to an English catalogue text
 * (or an English template with values filled in) that this language words differently, or
 * containing a word of ENGLISH_WORDS while being no text of this language's catalogue.
 */
export function englishLeft(texts: readonly string[], catalogue: Messages): Finding[] {
  const own = new Set(Object.values(catalogue));
  const ownPatterns = Object.values(catalogue).flatMap((text) => templatePattern(text) ?? []);
  const isOwn = (text: string) => own.has(text) || ownPatterns.some((pattern) => pattern.test(text));
  const findings: Finding[] = [];
  for (const text of texts) {
    if (isOwn(text)) continue;
    const key = (Object.keys(en) as Array<keyof typeof en>).find((candidate) => {
      const english = en[candidate];
      return english === text || templatePattern(english)?.test(text) === true;
    });
    if (key !== undefined) {
      findings.push({ text, why: `the English text of ${key}` });
      continue;
    }
    const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
    const english = words.filter((word) => ENGLISH_WORDS.has(word));
    if (english.length > 0) findings.push({ text, why: `English words: ${english.join(', ')}` });
  }
  return findings;
}
