import type { Messages } from '../i18n.js';
import { actions } from './actions.js';
import { actionsForm } from './actions-form.js';
import { costs } from './costs.js';
import { meters } from './meters.js';
import { peak } from './peak.js';
import { pages } from './pages.js';
import { settings } from './settings.js';

export const nl: Messages = {
  ...pages,
  ...settings,
  ...actions,
  ...actionsForm,
  ...costs,
  ...meters,
  ...peak,
};
