import type { costs as english } from '../en/costs.js';
import type { Translation } from '../part.js';

/** Deutsch: die Energiekosten. */
export const costs: Translation<typeof english> = {
  'costs.title': 'Energiekosten',
  'costs.enable': 'Kosten neben kWh anzeigen',
  'costs.currency': 'Währung (ISO-Code)',
  'costs.import_price': 'Bezugspreis',
  'costs.export_price': 'Einspeisevergütung',
  'costs.price_by': 'Preis nach',
  'costs.price': 'Preis pro kWh',
  'costs.t1': 'Preis pro kWh im Tarif 1 (T1)',
  'costs.t2': 'Preis pro kWh im Tarif 2 (T2)',
  'costs.time_of_use': 'Zeittariftabelle',
  'costs.time_of_use_hint': 'Einträge HH:MM=Preis auf Viertelstunden, z. B. 07:00=0.32 22:00=0.21',
  'costs.standing': 'Grundgebühr pro Monat',
  'costs.import': 'Bezug',
  'costs.export_credit': 'Einspeisevergütung',
  'costs.standing_share': 'Grundgebühr',
  'costs.capacity': 'Leistungspreis',
  'costs.total': 'Summe',
  'costs.per_bar': 'Kosten pro Balken',
  'costs.energy': 'kWh Bezug / Einspeisung',
  'costs.cost': 'Kosten ({currency})',
  'choice.fixed': 'ein fester Preis',
  'choice.tariff': 'das Tarifregister des Zählers (T1/T2)',
  'choice.time_of_use': 'Tageszeit',
};
