import { bindActions } from './actions.js';
import { Dashboard } from './dashboard.js';
import { bindFiles, showFiles } from './files.js';
import { showHistory } from './history.js';
import { HistoryExplorer } from './history-explorer.js';
import { bindMaintenance } from './maintenance.js';
import { bindModbus } from './modbus.js';
import { bindSettings } from './settings.js';
import { bindBackup } from './backup.js';
import { showInfo } from './info.js';
import { showMeters } from './meters.js';
import { bindMetersSettings } from './meters-settings.js';
import { bindLogView, showLog } from './log-view.js';
import { bindPortPicker } from './serial-ports.js';
import { startStatus } from './status.js';
import { showFirstRunHint } from './first-run.js';
import { startLanguage } from './i18n/load.js';
import { bindPreferences } from './preferences.js';
import { element } from './api.js';
import { PeakLive } from './peak-live.js';
import { startPeakCard } from './peak-card.js';
import { startPriceCard } from './price-chart.js';
import { bindPeakPage } from './peak-page.js';
import { bindPeakSettings } from './peak-settings.js';
import { startLimiterCard } from './limiter-card.js';
import { bindLimiterSettings } from './limiter-settings.js';
import { startStream } from './page-stream.js';

/**
 * The single-page app: hash routes #/dashboard, #/history, #/peak, #/actions, #/files, #/settings/<tab>. The dashboard's live
 * stream runs from the start, so its chart has the last minutes whichever page is open.
 * The language's catalogue is loaded and the static page translated before anything is bound.
 */
await startLanguage();
bindPreferences();
const loaders = bindSettings();
loaders.modbus = [bindModbus()];
bindMaintenance();
loaders.meter = [...(loaders.meter ?? []), bindPortPicker(), bindMetersSettings()];
loaders.services = [...(loaders.services ?? []), bindPeakSettings(element<HTMLFormElement>('form-peak'))];
loaders.services.push(bindLimiterSettings(element<HTMLFormElement>('form-limiter')));
bindBackup();
bindLogView();
bindFiles();
new Dashboard().start();
const explorer = new HistoryExplorer();
explorer.bind();
startStatus();
const loadActions = bindActions();
const peakLive = new PeakLive();
startPeakCard(peakLive);
startPriceCard();
startLimiterCard();
const loadPeak = bindPeakPage(peakLive);
peakLive.start();
startStream();

function route(): void {
  const [, page = 'dashboard', tab = 'system'] = location.hash.split('/');
  const known = ['dashboard', 'meters', 'history', 'peak', 'actions', 'files', 'settings', 'info'].includes(
    page,
  )
    ? page
    : 'dashboard';
  for (const section of document.querySelectorAll<HTMLElement>('section.page')) {
    section.hidden = section.id !== `page-${known}`;
  }
  for (const link of document.querySelectorAll<HTMLAnchorElement>('header nav a')) {
    link.classList.toggle('active', link.dataset.page === known);
  }
  if (known === 'history') void Promise.all([explorer.refresh(), showHistory()]);
  if (known === 'dashboard') void showFirstRunHint();
  if (known === 'info') void showInfo().then(showLog);
  if (known === 'actions') void loadActions();
  if (known === 'files') void showFiles();
  if (known === 'meters') showMeters();
  if (known === 'peak') void loadPeak();
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
