import type { push as english } from '../en/push.js';
import type { Translation } from '../part.js';

/** Français : la section Envoi vers la flotte de la page Infos. */
export const push: Translation<typeof english> = {
  'push.title': 'Envoi vers la flotte',
  'push.none': 'Aucune cible d’envoi n’est activée.',
  'push.target': 'Cible',
  'push.state': 'État',
  'push.cursor': 'Envoyé jusqu’à',
  'push.backlog': 'Retard (quarts d’heure)',
  'push.sent': 'Valeurs envoyées',
  'push.retried': 'Nouvelles tentatives',
  'push.dropped': 'Écartées (trop anciennes / refusées)',
  'push.last_error': 'Dernière erreur',
  'push.state.starting': 'démarrage',
  'push.state.idle': 'à jour',
  'push.state.sending': 'envoi',
  'push.state.backoff': 'attente avant nouvel essai',
  'push.state.clock_unsynced': 'horloge décalée',
  'push.state.error': 'erreur',
  'push.state.stopped': 'arrêté',
  'push.load_failed': 'État de l’envoi non chargé : {message}',
};
