import type { costs as english } from '../en/costs.js';
import type { Translation } from '../part.js';

/** Français : les coûts de l’énergie. */
export const costs: Translation<typeof english> = {
  'costs.title': 'Coûts de l’énergie',
  'costs.enable': 'Afficher les coûts à côté des kWh',
  'costs.currency': 'Devise (code ISO)',
  'costs.import_price': 'Prix du prélèvement',
  'costs.export_price': 'Prix de l’injection (reçu)',
  'costs.price_by': 'Prix selon',
  'costs.price': 'Prix par kWh',
  'costs.t1': 'Prix par kWh au tarif 1 (T1)',
  'costs.t2': 'Prix par kWh au tarif 2 (T2)',
  'costs.time_of_use': 'Tableau horaire des prix',
  'costs.time_of_use_hint': 'Entrées HH:MM=prix aux quarts d’heure, p. ex. 07:00=0.32 22:00=0.21',
  'costs.standing': 'Abonnement par mois',
  'costs.import': 'Prélèvement',
  'costs.export_credit': 'Crédit d’injection',
  'costs.standing_share': 'Abonnement',
  'costs.capacity': 'Redevance de capacité',
  'costs.total': 'Total',
  'costs.per_bar': 'Coût par barre',
  'costs.energy': 'kWh prélevés / injectés',
  'costs.cost': 'Coût ({currency})',
  'choice.fixed': 'un prix fixe',
  'choice.tariff': 'le registre tarifaire du compteur (T1/T2)',
  'choice.time_of_use': 'l’heure de la journée',
};
