import type { metersEditor as english } from '../en/meters-editor.js';
import type { Translation } from '../part.js';

/** Français : l’éditeur des compteurs supplémentaires (types de source, champs, expression). */
export const metersEditor: Translation<typeof english> = {
  'meters.editor.new': 'Nouveau compteur',
  'meters.editor.role': 'Rôle',
  'meters.editor.kind': 'Source',
  'meters.editor.kind_serial': 'Port série (P1, SML, IEC 62056-21)',
  'meters.editor.kind_modbus_tcp': 'Compteur Modbus TCP',
  'meters.editor.kind_modbus_rtu': 'Compteur Modbus RTU (RS485)',
  'meters.editor.kind_homewizard': 'Compteur HomeWizard P1',
  'meters.editor.kind_shelly': 'Shelly Pro 3EM',
  'meters.editor.kind_virtual': 'Compteur virtuel (expression)',
  'meters.editor.kind_uri': 'Autre source (URI)',
  'meters.editor.port': 'Port série',
  'meters.editor.device': 'Adaptateur RS485',
  'meters.editor.no_port': 'aucun port série trouvé',
  'meters.editor.protocol': 'Protocole',
  'meters.editor.protocol_auto': 'reconnaître automatiquement',
  'meters.editor.host': 'Nom d’hôte ou adresse IP',
  'meters.editor.tcp_port': 'Port TCP',
  'meters.editor.baud': 'Débit (bauds)',
  'meters.editor.profile': 'Profil de registres',
  'meters.editor.unit': 'Adresse (unit id)',
  'meters.editor.uri': 'URI de la source',
  'meters.editor.expression': 'Expression',
  'meters.editor.expression_hint': '+, − et facteurs sur les identifiants, p. ex. main - ev',
  'meters.editor.insert': 'Insérer un identifiant de compteur',
  'meters.editor.built': 'URI de la source : {uri}',
};
