import type { DirectoryEntry, DirectoryListing } from '../../contracts/sdcard.js';
import { api, element, pageRelative } from './api.js';
import { formatNumber, formatTime } from './format.js';
import { t } from './i18n/i18n.js';

/** The folder the page shows, relative to the SD card folder: '' or 'archive/'. */
let folder = '';

/** Bytes as a person reads them: 812 B, 14.2 kB, 3.1 MB (powers of 1000). */
export function sizeText(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${formatNumber(value, 1)} ${units[unit]}`;
}

function encodedPath(relative: string): string {
  return relative.split('/').map(encodeURIComponent).join('/');
}

function say(text: string): void {
  element('files-status').textContent = text;
}

function cell(row: HTMLTableRowElement, content: string | Node, className?: string): void {
  const td = row.insertCell();
  if (className) td.className = className;
  td.append(content);
}

function nameCell(entry: DirectoryEntry): Node {
  const target = `${folder}${entry.name}`;
  const link = document.createElement('a');
  link.textContent = entry.name;
  if (entry.type === 'dir') {
    link.href = '#/files';
    link.addEventListener('click', (event) => {
      event.preventDefault();
      folder = target;
      void showFiles();
    });
  } else {
    // A plain link: the browser downloads the raw file (Content-Disposition: attachment).
    link.href = pageRelative(`/sdcard/${encodedPath(target)}`);
    link.download = entry.name;
  }
  return link;
}

function deleteButton(entry: DirectoryEntry): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'danger';
  button.textContent = t('files.delete');
  button.addEventListener('click', () => {
    const question = entry.type === 'dir' ? 'files.confirm_delete_folder' : 'files.confirm_delete';
    if (!confirm(t(question, { name: entry.name }))) return;
    api('DELETE', `/sdcard/${encodedPath(folder + entry.name)}`)
      .then(() => showFiles(t('files.deleted', { name: entry.name })))
      .catch((error: unknown) => say(t('files.not_deleted', { message: (error as Error).message })));
  });
  return button;
}

function render(listing: DirectoryListing): void {
  element('files-path').textContent = listing.path;
  element<HTMLButtonElement>('files-up').hidden = folder === '';
  const body = element<HTMLTableSectionElement>('files-rows');
  body.replaceChildren();
  for (const entry of listing.files) {
    const row = body.insertRow();
    row.dataset.name = entry.name;
    cell(row, nameCell(entry));
    cell(row, entry.type === 'dir' ? '' : sizeText(entry.size), 'number');
    cell(row, formatTime(Date.parse(entry.modified), 'full'));
    cell(row, deleteButton(entry));
  }
  element('files-empty').hidden = listing.files.length > 0;
}

/** Loads and shows the current folder; `note` goes to the status line afterwards. */
export async function showFiles(note = ''): Promise<void> {
  try {
    render(await api<DirectoryListing>('GET', `/sdcard/${encodedPath(folder)}`));
    say(note);
  } catch (error) {
    say(t('files.list_failed', { message: (error as Error).message }));
  }
}

export function bindFiles(): void {
  element('files-up').addEventListener('click', () => {
    folder = folder.replace(/[^/]+\/$/, '');
    void showFiles();
  });
  element('files-refresh').addEventListener('click', () => void showFiles());
}
