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

/** Writes a progress or success message into the polite live region. */
export function announce(text: string): void {
  byId('status').textContent = text;
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

/**
 * Shows a failure in the alert region: for an identity error the envelope's message and request
 * ID (quote it when asking for help); for a browser passkey error a plain explanation.
 */
export function showError(error: unknown): void {
  const region = byId('error');
  const message = document.createElement('p');
  message.className = 'error-message';
  message.id = 'error-message';
  const parts: Node[] = [message];
  if (error instanceof IdentityApiError) {
    message.textContent = error.message;
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

/**
 * Runs one user action: clears the previous error, marks `control` busy and disabled while it runs,
 * and reports any failure through {@link showError}.
 */
export async function runAction(
  control: HTMLButtonElement | HTMLFormElement,
  action: () => Promise<void>,
): Promise<void> {
  const buttons = control instanceof HTMLFormElement ? [...control.querySelectorAll('button')] : [control];
  clearError();
  control.setAttribute('aria-busy', 'true');
  for (const button of buttons) button.disabled = true;
  try {
    await action();
  } catch (error) {
    showError(error);
  } finally {
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
  const copy = byId<HTMLButtonElement>('copy-codes');
  copy.onclick = () => {
    navigator.clipboard.writeText(codes.join('\n')).then(
      () => announce('The recovery codes were copied to the clipboard.'),
      () => announce('Copying failed; select the codes and copy them by hand.'),
    );
  };
  const step = byId('codes-step');
  show(step, true);
  step.scrollIntoView({ block: 'start' });
  byId('codes-heading').setAttribute('tabindex', '-1');
  byId('codes-heading').focus();
}

/** A timestamp for people, in the browser's locale, inside `<time datetime>`. */
export function timeElement(iso: string | undefined): HTMLElement | Text {
  if (iso === undefined) return document.createTextNode('—');
  const time = document.createElement('time');
  time.dateTime = iso;
  time.textContent = new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
  return time;
}
