/** Small builders of form controls for the pages that make their forms in code. */

export function labelled(text: string, control: HTMLElement, className?: string): HTMLLabelElement {
  const label = document.createElement('label');
  if (className) label.className = className;
  if (control instanceof HTMLInputElement && control.type === 'checkbox') label.append(control, ` ${text}`);
  else label.append(text, ' ', control);
  return label;
}

export function textInput(
  name: string,
  type: 'text' | 'number' | 'checkbox' | 'time' = 'text',
): HTMLInputElement {
  const made = document.createElement('input');
  made.name = name;
  made.type = type;
  if (type === 'number') made.step = 'any';
  return made;
}

export function selectOf(
  name: string,
  options: ReadonlyArray<[value: string, text: string]>,
): HTMLSelectElement {
  const made = document.createElement('select');
  made.name = name;
  for (const [value, text] of options) made.add(new Option(text, value));
  return made;
}

export function buttonOf(text: string, onClick: () => void, className?: string): HTMLButtonElement {
  const made = document.createElement('button');
  made.type = 'button';
  made.textContent = text;
  if (className) made.className = className;
  made.addEventListener('click', onClick);
  return made;
}

/** Shows or hides a control's label; the forms' display rules win over the hidden attribute. */
export function showLabel(label: HTMLElement, shown: boolean): void {
  label.hidden = !shown;
  label.style.display = shown ? '' : 'none';
}
