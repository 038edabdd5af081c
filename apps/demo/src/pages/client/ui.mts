import { IdentityApiError } from './api.mjs';

/** The element with this id (the page templates guarantee it exists). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`Page element #${id} is missing`);
  return element as T;
}

/** Shows or hides a section. */
export function show(element: HTMLElement, visible: boolean): void {
  element.hidden = !visible;
}

/**
 * Writes a progress or success message into the polite live region, and, while an action runs
 * ({@link runAction}), next to its form as well (focused unless the action moved focus itself,
 * e.g. to a shown-once panel).
 */
export function announce(text: string): void {
  byId('status').textContent = text;
  const feedback = feedbackOfAction;
  if (feedback === undefined || text === '') return;
  feedback.className = 'form-feedback success';
  feedback.textContent = text;
  const focused = document.activeElement;
  if (focused === null || focused === document.body || feedback.previousElementSibling?.contains(focused) === true)
    feedback.focus();
}

/**
 * Shows a success in `container` (appended as its feedback) and focuses it: for an action whose
 * form was redrawn by the change itself (a table row), where {@link announce} has no place left.
 */
export function announceIn(container: HTMLElement, text: string): void {
  byId('status').textContent = text;
  let feedback = container.querySelector<HTMLElement>(':scope > .form-feedback');
  if (feedback === null) {
    feedback = document.createElement('div');
    feedback.tabIndex = -1;
    container.append(feedback);
  }
  feedback.className = 'form-feedback success';
  feedback.textContent = text;
  feedback.focus();
}

/** Empties the alert region (before every new action). */
export function clearError(): void {
  byId('error').replaceChildren();
}

const WEBAUTHN_MESSAGES: Record<string, string> = {
  NotAllowedError: 'The passkey request was cancelled, timed out or was not allowed.',
  AbortError: 'The passkey request was cancelled.',
  InvalidStateError: 'This authenticator already holds a passkey for this account.',
  SecurityError: 'This page’s address cannot use passkeys for this site.',
  NotSupportedError: 'This browser or authenticator does not support the required passkey type.',
};

/** Plain messages for error codes, per action (e.g. `conflict` of a duplicate invitation). */
export type ErrorMessages = Readonly<Partial<Record<string, string>>>;

/**
 * Shows a failure: for an identity error the envelope's message (or the action's own message for
 * its code) and request ID (quote it when asking for help); for a browser passkey error a plain
 * explanation. It goes into `region` — the feedback next to the form that failed — or the page's
 * alert region.
 */
export function showError(error: unknown, region: HTMLElement = byId('error'), messages: ErrorMessages = {}): void {
  const message = document.createElement('p');
  message.className = 'error-message';
  message.id = 'error-message';
  const parts: Node[] = [message];
  if (error instanceof IdentityApiError) {
    message.textContent = messages[error.code] ?? error.message;
    if (error.requestId !== undefined) {
      const line = document.createElement('p');
      line.className = 'error-request';
      const code = document.createElement('code');
      code.id = 'error-request-id';
      code.textContent = error.requestId;
      line.append('Request ID: ', code);
      parts.push(line);
    }
  } else {
    // @simplewebauthn/browser names its WebAuthnError after the DOMException it wraps.
    const name = error instanceof Error ? error.name : '';
    message.textContent = WEBAUTHN_MESSAGES[name] ?? (error instanceof Error ? error.message : 'Something went wrong.');
  }
  announce('');
  region.replaceChildren(...parts);
}

/** The feedback of the action running now: its success messages go next to its form too. */
let feedbackOfAction: HTMLElement | undefined;

/**
 * The feedback element right after a form (or inside a table cell, after a row's buttons), made
 * on first use: errors and successes appear where the person is looking, not in the banner at the
 * top of the page.
 */
function feedbackFor(control: HTMLButtonElement | HTMLFormElement): HTMLElement {
  const cell = control.closest('td');
  const anchor = control instanceof HTMLFormElement ? control : (control.closest('form') ?? control);
  const existing = cell !== null ? cell.querySelector(':scope > .form-feedback') : anchor.nextElementSibling;
  if (existing instanceof HTMLElement && existing.classList.contains('form-feedback')) return existing;
  const feedback = document.createElement('div');
  feedback.className = 'form-feedback';
  feedback.tabIndex = -1;
  if (cell !== null) cell.append(feedback);
  else anchor.after(feedback);
  return feedback;
}

/**
 * Runs one user action: clears every earlier error and feedback (and hides the shown-once panel
 * the form declares in `data-reveals`, so a failed new attempt never leaves an old link or token
 * on screen), marks `control` busy and disabled while it runs, and shows a failure next to the
 * form, focused, through {@link showError} (with `messages` for codes the action explains itself).
 */
export async function runAction(
  control: HTMLButtonElement | HTMLFormElement,
  action: () => Promise<void>,
  messages: ErrorMessages = {},
): Promise<void> {
  const buttons = control instanceof HTMLFormElement ? [...control.querySelectorAll('button')] : [control];
  clearError();
  for (const old of document.querySelectorAll<HTMLElement>('.form-feedback')) {
    old.replaceChildren();
    old.removeAttribute('role');
    old.className = 'form-feedback';
  }
  const reveals = control instanceof HTMLFormElement ? control.dataset['reveals'] : undefined;
  if (reveals !== undefined) hideSecret(reveals);
  const feedback = feedbackFor(control);
  feedbackOfAction = feedback;
  const focusedBefore = document.activeElement;
  control.setAttribute('aria-busy', 'true');
  for (const button of buttons) button.disabled = true;
  try {
    await action();
  } catch (error) {
    feedback.className = 'form-feedback error';
    feedback.setAttribute('role', 'alert');
    showError(error, feedback, messages);
    // The action may have focused the field to fix (e.g. an unchosen organization): keep that.
    const focused = document.activeElement;
    if (focused === focusedBefore || focused === null || focused === document.body) feedback.focus();
  } finally {
    feedbackOfAction = undefined;
    control.removeAttribute('aria-busy');
    for (const button of buttons) button.disabled = false;
  }
}

/** The named text fields of a form. */
export function formText(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) if (typeof value === 'string') values[name] = value;
  return values;
}

/**
 * Fills and reveals the recovery-codes block (`#codes-step`): ten codes shown once, never stored by
 * the page; "Copy" puts them on the clipboard.
 */
export function showRecoveryCodes(codes: readonly string[]): void {
  const items = codes.map((code) => {
    const item = document.createElement('li');
    const text = document.createElement('code');
    text.textContent = code;
    item.append(text);
    return item;
  });
  byId('codes-list').replaceChildren(...items);
  byId<HTMLButtonElement>('copy-codes').onclick = () =>
    copyText(codes.join('\n'), 'The recovery codes were copied to the clipboard.', 'select the codes');
  byId<HTMLButtonElement>('download-codes').onclick = () => downloadRecoveryCodes(codes);
  byId<HTMLButtonElement>('print-codes').onclick = () => printRecoveryCodes();
  const step = byId('codes-step');
  show(step, true);
  step.scrollIntoView({ block: 'start' });
  byId('codes-heading').setAttribute('tabindex', '-1');
  byId('codes-heading').focus();
}

/** Saves the codes as `tessera-recovery-codes-<host>.txt`, made in the page: they never leave the browser. */
function downloadRecoveryCodes(codes: readonly string[]): void {
  const text = [
    `Recovery codes for ${location.host}`,
    `Saved ${new Date().toLocaleString()}. Each code works once; keep them somewhere safe.`,
    '',
    ...codes.map((code, i) => `${String(i + 1).padStart(2, ' ')}. ${code}`),
    '',
  ].join('\n');
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  link.download = `tessera-recovery-codes-${location.hostname}.txt`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  announce('The recovery codes were saved as a text file.');
}

/** Prints only the codes block (`body.print-codes`, see identity.css). */
function printRecoveryCodes(): void {
  document.body.classList.add('print-codes');
  window.addEventListener('afterprint', () => document.body.classList.remove('print-codes'), { once: true });
  window.print();
}

/** A timestamp for people, in the browser's locale, inside `<time datetime>`. */
export function timeElement(iso: string | undefined): HTMLElement | Text {
  if (iso === undefined) return document.createTextNode('—');
  const time = document.createElement('time');
  time.dateTime = iso;
  time.textContent = new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
  return time;
}

/** Puts `text` on the clipboard and says whether it worked (`what`: what to select by hand instead). */
export function copyText(text: string, copied: string, what: string): void {
  navigator.clipboard.writeText(text).then(
    () => announce(copied),
    () => announce(`Copying failed; ${what} and copy it by hand.`),
  );
}

/** A table cell holding `content`. */
export function tableCell(...content: (Node | string)[]): HTMLTableCellElement {
  const td = document.createElement('td');
  td.append(...content);
  return td;
}

/** The row header cell (`<th scope="row">`) naming a table row. */
export function rowHeader(...content: (Node | string)[]): HTMLTableCellElement {
  const th = document.createElement('th');
  th.scope = 'row';
  th.append(...content);
  return th;
}

/** A row button whose accessible name says which row it acts on ("Revoke" → "Revoke passkey X"). */
export function actionButton(label: string, accessibleName: string, className?: string): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = label;
  element.setAttribute('aria-label', accessibleName);
  if (className !== undefined) element.className = className;
  return element;
}

/** Inline code text (IDs, slugs, capability names); `className` `id` lets long IDs wrap anywhere. */
export function codeText(text: string, className?: string): HTMLElement {
  const code = document.createElement('code');
  code.textContent = text;
  if (className !== undefined) code.className = className;
  return code;
}

/**
 * Fills and reveals a shown-once secret block (`secretBlock` in the organization page template):
 * the value in a read-only field, a line saying what it is for, and a copy button. The page keeps
 * nothing: a reload or the next secret replaces it.
 */
export function revealSecret(blockId: string, value: string, purpose: string, copied: string): void {
  byId<HTMLInputElement>(`${blockId}-value`).value = value;
  byId(`${blockId}-purpose`).textContent = purpose;
  byId<HTMLButtonElement>(`${blockId}-copy`).onclick = () => copyText(value, copied, 'select the field');
  const block = byId(blockId);
  show(block, true);
  block.scrollIntoView({ block: 'start' });
  byId(`${blockId}-heading`).focus();
}

/** Wires a form's submit to `action` through {@link runAction}, with its named text fields. */
export function wireForm(
  id: string,
  action: (values: Record<string, string>, form: HTMLFormElement) => Promise<void>,
  messages: ErrorMessages = {},
): HTMLFormElement {
  const form = byId<HTMLFormElement>(id);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void runAction(form, () => action(formText(form), form), messages);
  });
  return form;
}

/** Hides a shown-once block and forgets its value. */
export function hideSecret(blockId: string): void {
  const block = document.getElementById(blockId);
  if (block === null) return;
  show(block, false);
  const value = document.getElementById(`${blockId}-value`);
  if (value instanceof HTMLInputElement) value.value = '';
}
