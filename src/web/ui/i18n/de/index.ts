import type { Messages } from '../i18n.js';
import { actions } from './actions.js';
import { pages } from './pages.js';
import { settings } from './settings.js';

export const de: Messages = { ...pages, ...settings, ...actions };
