/**
 * services.emulate of the convict schema (assembled in schema.ts): the Shelly Pro 3EM and
 * HomeWizard P1 personalities, each with the meter it serves, its ports and its power smoothing.
 */
import { bool, int, oneOf, owned, text } from './schema-leaves.js';

export const EMULATE_SCHEMA = {
  shelly: {
    enable: bool(
      false,
      'Shelly Pro 3EM personality: /shelly, /rpc over HTTP and WebSocket, UDP JSON-RPC, mDNS shellypro3em-<id>.',
    ),
    meter: owned(
      'meter-id',
      'main',
      'Meter the Shelly personality serves: main (the primary) or an id of meters.',
    ),
    udp_port: int(
      1010,
      0,
      65535,
      'UDP JSON-RPC port of the Shelly personality (Marstek batteries poll 1010); 0: no UDP.',
    ),
    udp_ports: text(
      '2220',
      64,
      'Further UDP JSON-RPC ports of the Shelly personality, comma-separated (B2500 firmware 226 and later poll 2220); empty: udp_port alone.',
      { pattern: /^(\d{1,5}(,\d{1,5}){0,7})?$/, patternText: 'up to 8 port numbers separated by commas' },
    ),
    smoothing: {
      mode: oneOf(
        'off',
        ['off', 'average', 'hold'],
        'Power smoothing of the Shelly personality: off, average (moving mean over seconds) or hold (each value held for seconds); energies are never smoothed.',
      ),
      seconds: int(
        5,
        1,
        300,
        'Window of the average or length of the hold of Shelly power smoothing, in seconds (1..300).',
      ),
    },
  },
  homewizard: {
    enable: bool(
      false,
      'HomeWizard P1 local API v1 (GET /api, /api/v1/data, /api/v1/telegram) and mDNS _hwenergy._tcp.',
    ),
    meter: owned('meter-id', 'main', 'Meter the HomeWizard P1 personality serves: main or an id of meters.'),
    port: int(
      0,
      0,
      65535,
      "Own HTTP port of the HomeWizard personality, open without a password, with the P1's /api/v1/system (Home Assistant needs it while system.protection is on); 0: only on the API's port.",
    ),
    smoothing: {
      mode: oneOf(
        'off',
        ['off', 'average', 'hold'],
        'Power smoothing of the HomeWizard personality: off, average (moving mean over seconds) or hold (each value held for seconds); energies are never smoothed.',
      ),
      seconds: int(
        5,
        1,
        300,
        'Window of the average or length of the hold of HomeWizard power smoothing, in seconds (1..300).',
      ),
    },
  },
};
