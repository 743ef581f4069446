import type { apply as english } from '../en/apply.js';
import type { Translation } from '../part.js';

/** Nederlandse teksten over de afloop van opslaan naast opgeslagen (wordt nog toegepast, niet toegepast). */
export const apply: Translation<typeof english> = {
  'apply.applying': 'Wordt toegepast… ({outputs})',
  'apply.not_applied': 'Opgeslagen, maar niet toegepast door {outputs}: {reasons}',
};
