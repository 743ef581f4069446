import { actions } from './actions.js';
import { apply } from './apply.js';
import { actionsForm } from './actions-form.js';
import { costs } from './costs.js';
import { dashboard } from './dashboard.js';
import { meters } from './meters.js';
import { metersEditor } from './meters-editor.js';
import { metersDiscover } from './meters-discover.js';
import { peak } from './peak.js';
import { limiter } from './limiter.js';
import { pages } from './pages.js';
import { server } from './server.js';
import { push } from './push.js';
import { settings } from './settings.js';

/**
 * The English catalogue: the reference every other language is typed against (a key missing or
 * extra there is a compile error). A new text: add its key to the English part of its page, then
 * the same key to that part in de/, fr/ and nl/ (the compiler lists the files that still lack it).
 */
export const en = {
  ...pages,
  ...settings,
  ...actions,
  ...actionsForm,
  ...costs,
  ...meters,
  ...peak,
  ...limiter,
  ...dashboard,
  ...server,
  ...metersEditor,
  ...metersDiscover,
  ...push,
  ...apply,
};

export type MessageKey = keyof typeof en;
