import type { apply as english } from '../en/apply.js';
import type { Translation } from '../part.js';

/** Deutsche Texte zum Ausgang eines Speicherns jenseits von gespeichert (noch in Arbeit, nicht übernommen). */
export const apply: Translation<typeof english> = {
  'apply.applying': 'Wird übernommen… ({outputs})',
  'apply.not_applied': 'Gespeichert, aber nicht übernommen von {outputs}: {reasons}',
};
