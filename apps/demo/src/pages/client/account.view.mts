import type { PasskeyView } from './ceremonies.mjs';
import { actionButton as button, byId, tableCell as cell, timeElement } from './ui.mjs';

/** `SessionView` (identity-http §4.5). */
export interface SessionView {
  readonly id: string;
  readonly label?: string;
  readonly platform?: string;
  readonly assurance: string;
  readonly authenticationMethod: string;
  readonly state: string;
  readonly authenticatedAt: string;
  readonly lastUsedAt: string;
  readonly idleExpiresAt: string;
  readonly absoluteExpiresAt: string;
  readonly current: boolean;
}

/** What the account tables ask the page to do. */
export interface AccountActions {
  renamePasskey(passkey: PasskeyView, name: string, form: HTMLFormElement): void;
  revokePasskey(passkey: PasskeyView, button: HTMLButtonElement): void;
  revokeSession(session: SessionView, button: HTMLButtonElement): void;
}

/** Passkeys, oldest first as the API returns them; active ones can be renamed and revoked. */
export function renderPasskeys(passkeys: readonly PasskeyView[], actions: AccountActions): void {
  const rows = passkeys.map((passkey) => {
    const row = document.createElement('tr');
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = passkey.name;
    const actionsCell = cell();
    actionsCell.className = 'row-actions';
    if (passkey.state === 'active') {
      const form = document.createElement('form');
      form.className = 'row-form';
      const input = document.createElement('input');
      input.name = 'name';
      input.required = true;
      input.maxLength = 200;
      input.value = passkey.name;
      input.setAttribute('aria-label', `New name for passkey ${passkey.name}`);
      const save = document.createElement('button');
      save.type = 'submit';
      save.className = 'secondary';
      save.textContent = 'Rename';
      save.setAttribute('aria-label', `Rename passkey ${passkey.name}`);
      form.append(input, save);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        actions.renamePasskey(passkey, input.value, form);
      });
      const revoke = button('Revoke', `Revoke passkey ${passkey.name}`, 'danger');
      revoke.addEventListener('click', () => actions.revokePasskey(passkey, revoke));
      actionsCell.append(form, revoke);
    }
    const synced = passkey.backedUp ? ' · synced' : '';
    row.append(
      name,
      cell(`${passkey.state}${synced}`),
      cell(timeElement(passkey.createdAt)),
      cell(timeElement(passkey.lastUsedAt)),
      actionsCell,
    );
    return row;
  });
  byId('passkeys-body').replaceChildren(...rows);
}

/** Sessions newest first; the current one is marked, active ones can be revoked. */
export function renderSessions(sessions: readonly SessionView[], actions: AccountActions): void {
  const rows = sessions.map((session) => {
    const row = document.createElement('tr');
    if (session.current) row.className = 'current';
    const device = document.createElement('th');
    device.scope = 'row';
    const label = [session.label, session.platform].filter(Boolean).join(' · ') || 'Unnamed device';
    device.append(label);
    if (session.current) {
      const badge = document.createElement('strong');
      badge.className = 'badge';
      badge.textContent = 'this browser';
      device.append(' ', badge);
    }
    const actionsCell = cell();
    actionsCell.className = 'row-actions';
    if (session.state === 'active') {
      const revoke = button(
        session.current ? 'Sign out' : 'Revoke',
        session.current
          ? 'Sign out this browser (revoke its session)'
          : `Revoke session ${label} last used ${session.lastUsedAt}`,
        'secondary',
      );
      revoke.addEventListener('click', () => actions.revokeSession(session, revoke));
      actionsCell.append(revoke);
    }
    row.append(
      device,
      cell(session.authenticationMethod),
      cell(session.assurance),
      cell(session.state),
      cell(timeElement(session.lastUsedAt)),
      actionsCell,
    );
    return row;
  });
  byId('sessions-body').replaceChildren(...rows);
}
