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

/** The Dutch catalogue: each part is typed against its English part (part.ts). */
export const nl = {
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
