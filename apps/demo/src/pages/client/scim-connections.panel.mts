import type { OrganizationContext } from './organizations.api.mjs';
import {
  CONNECTIONS,
  describeRule,
  explainScimError,
  providerLabel,
  ROTATION_OVERLAP_MINUTES,
  scimBaseUrl,
  type IssuedScimConnection,
  type ScimAction,
  type ScimConnectionView,
} from './scim.api.mjs';
import { ScimRulesEditor } from './scim-rules.editor.mjs';
import {
  actionButton,
  announce,
  byId,
  codeText,
  copyText,
  revealSecret,
  rowHeader,
  runAction,
  show,
  tableCell,
  timeElement,
  wireForm,
} from './ui.mjs';

/** The rules of a connection as a list, or what happens without any. */
function rulesCell(connection: ScimConnectionView): HTMLTableCellElement {
  if (connection.groupRoles.length === 0) return tableCell('none (everyone provisioned joins as viewer)');
  const list = document.createElement('ul');
  list.className = 'rule-list';
  for (const rule of connection.groupRoles) {
    const item = document.createElement('li');
    item.textContent = describeRule(rule);
    list.append(item);
  }
  return tableCell(list);
}

/** “Okta (okta)”: the provider's name and its `providerName`. */
function providerCell(connection: ScimConnectionView): HTMLTableCellElement {
  return rowHeader(
    providerLabel(connection.providerName),
    document.createElement('br'),
    codeText(connection.providerName),
  );
}

/**
 * The SCIM connections of the provisioning page (owners and admins): the base URL to paste into
 * the identity provider with a copy button; each connection's state, group-to-role rules and
 * token date; creating one with editable rules; rotating (the new token shown once, the old one
 * valid 10 more minutes) and revoking (after a confirmation). Every change confirms with a passkey
 * when the server asks for it; failures say what to check.
 *
 * @example
 * const connections = new ScimConnectionsPanel(page);
 * connections.wire();
 * await connections.refresh();
 */
export class ScimConnectionsPanel {
  private readonly rules = new ScimRulesEditor('scim-rules');
  /** The connection awaiting the revoke confirmation, if any. */
  private revoking: ScimConnectionView | undefined;
  private baseUrl = '';

  constructor(private readonly page: OrganizationContext) {}

  wire(): void {
    this.rules.wire('scim-add-rule');
    byId<HTMLButtonElement>('scim-base-url-copy').addEventListener('click', () =>
      copyText(this.baseUrl, 'The SCIM base URL was copied to the clipboard.', 'select the field'),
    );
    wireForm('create-scim-connection', async ({ providerName }, form) => {
      const body = { providerName: providerName ?? '', groupRoles: this.rules.rules() };
      const issued = await this.attempt('create', () =>
        this.page.org.change<IssuedScimConnection>('POST', CONNECTIONS, body),
      );
      form.reset();
      this.rules.clear();
      await this.refresh();
      this.revealToken(
        issued,
        `Paste it into ${providerLabel(issued.connection.providerName)} together with the base URL above`,
      );
      announce(
        `Connection for ${providerLabel(issued.connection.providerName)} created. Copy its token below now; you will not see it again.`,
      );
      await this.page.changed();
    });
    const confirm = byId<HTMLButtonElement>('scim-revoke-confirm');
    confirm.addEventListener('click', () => runAction(confirm, () => this.revoke()));
    byId<HTMLButtonElement>('scim-revoke-cancel').addEventListener('click', () => this.closeRevoke());
  }

  async refresh(): Promise<void> {
    const connections = await this.attempt('list', () => this.page.org.read<ScimConnectionView[]>(...CONNECTIONS));
    this.baseUrl = scimBaseUrl(connections);
    byId<HTMLInputElement>('scim-base-url').value = this.baseUrl;
    byId('scim-body').replaceChildren(...connections.map((connection) => this.row(connection)));
    show(byId('scim-table'), connections.length > 0);
    show(byId('scim-empty'), connections.length === 0);
    if (!connections.some((connection) => connection.id === this.revoking?.id && connection.state === 'active'))
      this.closeRevoke();
  }

  /** Runs a connection call, turning its failure into one that says what to check. */
  private async attempt<T>(action: ScimAction, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw explainScimError(error, action);
    }
  }

  private row(connection: ScimConnectionView): HTMLTableRowElement {
    const row = document.createElement('tr');
    row.dataset['connectionId'] = connection.id;
    const actions = tableCell();
    actions.className = 'row-actions';
    const name = providerLabel(connection.providerName);
    if (connection.state === 'active') {
      const rotate = actionButton('Rotate token', `Rotate the token of the ${name} connection`, 'secondary');
      rotate.addEventListener('click', () => runAction(rotate, () => this.rotate(connection)));
      const revoke = actionButton('Revoke', `Revoke the ${name} connection`, 'danger');
      revoke.addEventListener('click', () => this.askRevoke(connection));
      actions.append(rotate, ' ', revoke);
    } else {
      actions.append('—');
    }
    row.append(
      providerCell(connection),
      tableCell(connection.state),
      rulesCell(connection),
      tableCell(timeElement(connection.tokenIssuedAt)),
      tableCell(timeElement(connection.createdAt)),
      tableCell(timeElement(connection.revokedAt ?? undefined)),
      actions,
    );
    return row;
  }

  private async rotate(connection: ScimConnectionView): Promise<void> {
    const issued = await this.attempt('rotate', () =>
      this.page.org.change<IssuedScimConnection>('POST', [...CONNECTIONS, connection.id, 'rotate']),
    );
    await this.refresh();
    const until = new Date(Date.parse(issued.connection.tokenIssuedAt) + ROTATION_OVERLAP_MINUTES * 60_000);
    const time = until.toLocaleTimeString(undefined, { timeStyle: 'short' });
    this.revealToken(
      issued,
      `The previous token keeps working for ${ROTATION_OVERLAP_MINUTES} more minutes (until ${time}), then only this one does`,
    );
    announce(
      `New token for the ${providerLabel(connection.providerName)} connection. Paste it into your identity provider within ${ROTATION_OVERLAP_MINUTES} minutes: the previous one stops working then.`,
    );
    await this.page.changed();
  }

  private askRevoke(connection: ScimConnectionView): void {
    this.revoking = connection;
    const name = providerLabel(connection.providerName);
    byId('scim-revoke-heading').textContent = `Revoke the ${name} connection?`;
    byId('scim-revoke-confirm').textContent = `Yes, revoke the ${name} connection`;
    const block = byId('scim-revoke');
    show(block, true);
    block.scrollIntoView({ block: 'nearest' });
    byId('scim-revoke-heading').focus();
  }

  private closeRevoke(): void {
    this.revoking = undefined;
    show(byId('scim-revoke'), false);
  }

  private async revoke(): Promise<void> {
    const connection = this.revoking;
    if (connection === undefined) return;
    await this.attempt('revoke', () =>
      this.page.org.change<ScimConnectionView>('DELETE', [...CONNECTIONS, connection.id]),
    );
    this.closeRevoke();
    await this.refresh();
    announce(
      `The ${providerLabel(connection.providerName)} connection was revoked: its tokens stopped working. People it provisioned stay members.`,
    );
    await this.page.changed();
  }

  private revealToken({ connection, token }: IssuedScimConnection, note: string): void {
    revealSecret(
      'scim-secret',
      token,
      `Bearer token of the ${providerLabel(connection.providerName)} connection. ${note}.`,
      'The SCIM token was copied to the clipboard.',
    );
  }
}
