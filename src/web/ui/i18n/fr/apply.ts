import type { apply as english } from '../en/apply.js';
import type { Translation } from '../part.js';

/** Textes français de l'issue d'un enregistrement au-delà d'enregistré (en cours d'application, non appliqué). */
export const apply: Translation<typeof english> = {
  'apply.applying': 'Application en cours… ({outputs})',
  'apply.not_applied': 'Enregistré, mais non appliqué par {outputs} : {reasons}',
};
