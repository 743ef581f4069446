import type { costs as english } from '../en/costs.js';
import type { Translation } from '../part.js';

/** Nederlands: de energiekosten. */
export const costs: Translation<typeof english> = {
  'costs.title': 'Energiekosten',
  'costs.enable': 'Kosten naast kWh tonen',
  'costs.currency': 'Valuta (ISO-code)',
  'costs.import_price': 'Afnameprijs',
  'costs.export_price': 'Terugleverprijs (ontvangen)',
  'costs.price_by': 'Prijs volgens',
  'costs.price': 'Prijs per kWh',
  'costs.t1': 'Prijs per kWh in tarief 1 (T1)',
  'costs.t2': 'Prijs per kWh in tarief 2 (T2)',
  'costs.time_of_use': 'Tijdstarieftabel',
  'costs.time_of_use_hint': 'Regels UU:MM=prijs op kwartieren, bv. 07:00=0.32 22:00=0.21',
  'costs.standing': 'Vastrecht per maand',
  'costs.import': 'Afname',
  'costs.export_credit': 'Terugleververgoeding',
  'costs.standing_share': 'Vastrecht',
  'costs.capacity': 'Capaciteitstarief',
  'costs.total': 'Totaal',
  'costs.per_bar': 'Kosten per staaf',
  'costs.energy': 'kWh afname / teruglevering',
  'costs.cost': 'Kosten ({currency})',
  'choice.fixed': 'één vaste prijs',
  'choice.tariff': 'het tariefregister van de meter (T1/T2)',
  'choice.time_of_use': 'tijdstip van de dag',
};
