import type { dashboard as english } from '../en/dashboard.js';
import type { Translation } from '../part.js';

/** Français : les ajouts du tableau de bord et les valeurs en direct du pic de puissance. */
export const dashboard: Translation<typeof english> = {
  'dashboard.month_so_far': 'Ce mois-ci jusqu’ici',
  'dashboard.last_reading': 'Dernière mesure reçue à {time}, il y a {seconds} s',
  'peak.live_title': 'Fenêtre en cours',
  'peak.rolling_one': 'Moyenne glissante : {kw} kW sur {count} mois',
  'peak.rolling_short_one': 'Moins de 12 mois enregistrés : la moyenne est celle de {count} seul mois.',
};
