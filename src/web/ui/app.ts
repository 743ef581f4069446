import { Dashboard } from './dashboard.js';
import { bindFiles, showFiles } from './files.js';
import { showHistory } from './history.js';
import { bindMaintenance } from './maintenance.js';
import { bindModbus } from './modbus.js';
import { bindSettings } from './settings.js';

/**
 * The single-page app: hash routes #/dashboard, #/history, #/files, #/settings/<tab>. The dashboard's live
 * stream runs from the start, so its chart has the last minutes whichever page is open.
 */
const loaders = bindSettings();
loaders.modbus = [bindModbus()];
bindMaintenance();
bindFiles();
new Dashboard().start();

function route(): void {
  const [, page = 'dashboard', tab = 'system'] = location.hash.split('/');
  const known = ['dashboard', 'history', 'files', 'settings'].includes(page) ? page : 'dashboard';
  for (const section of document.querySelectorAll<HTMLElement>('section.page')) {
    section.hidden = section.id !== `page-${known}`;
  }
  for (const link of document.querySelectorAll<HTMLAnchorElement>('header nav a')) {
    link.classList.toggle('active', link.dataset.page === known);
  }
  if (known === 'history') void showHistory();
  if (known === 'files') void showFiles();
  if (known !== 'settings') return;
  for (const part of document.querySelectorAll<HTMLElement>('[data-tab]'))
    part.hidden = part.dataset.tab !== tab;
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav.tabs a')) {
    link.classList.toggle('active', link.hash === `#/settings/${tab}`);
  }
  for (const load of loaders[tab] ?? []) void load();
}

window.addEventListener('hashchange', route);
route();
