import {
  lifetimeFromDays,
  parseCapabilities,
  type CredentialView,
  type OrganizationContext,
  type ServiceIdentity,
} from './organizations.api.mjs';
import {
  actionButton,
  announce,
  byId,
  codeText,
  revealSecret,
  rowHeader,
  runAction,
  show,
  tableCell,
  timeElement,
  wireForm,
} from './ui.mjs';

/** A credential answer with its token (routes 43–44); route 40 adds the identity. */
interface IssuedCredential {
  readonly credential: CredentialView;
  readonly token: string;
}

function capabilityList(capabilities: readonly string[]): HTMLTableCellElement {
  const cell = tableCell();
  capabilities.forEach((capability, index) => cell.append(...(index === 0 ? [] : [' ']), codeText(capability)));
  return cell;
}

/**
 * Service identities (routes 39–41) and their credentials (42–45) on the organization page. Every
 * token is shown once with a copy button; every change confirms with a passkey when the server
 * asks for it.
 */
export class ServiceIdentitiesPanel {
  /** The identity whose credentials are open, if any. */
  private selected: ServiceIdentity | undefined;

  constructor(private readonly page: OrganizationContext) {}

  wire(): void {
    wireForm('create-service', async ({ name, description, capabilities, lifetimeDays }, form) => {
      const created = await this.page.org.change<IssuedCredential & { identity: ServiceIdentity }>(
        'POST',
        ['service-identities'],
        {
          name,
          ...(description ? { description } : {}),
          capabilities: parseCapabilities(capabilities ?? ''),
          ...lifetimeFromDays(lifetimeDays),
        },
      );
      form.reset();
      await this.refresh();
      this.revealToken(created, `“${created.identity.name}”`);
      announce(`Service identity “${created.identity.name}” created. Copy its token below; it is shown only once.`);
      await this.page.changed();
    });
    wireForm('create-credential', async ({ capabilities }, form) => {
      const identity = this.selected;
      if (identity === undefined) return;
      const issued = await this.page.org.change<IssuedCredential>(
        'POST',
        ['service-identities', identity.id, 'credentials'],
        { capabilities: parseCapabilities(capabilities ?? '') },
      );
      form.reset();
      await this.refreshCredentials(identity);
      this.revealToken(issued, `“${identity.name}”`);
      announce(`New credential for “${identity.name}” issued. Copy its token below; it is shown only once.`);
      await this.page.changed();
    });
  }

  async refresh(): Promise<void> {
    const identities = await this.page.org.read<ServiceIdentity[]>('service-identities');
    for (const identity of identities) this.page.names.set(identity.id, identity.name);
    byId('services-body').replaceChildren(...identities.map((identity) => this.identityRow(identity)));
    show(byId('services-table'), identities.length > 0);
    show(byId('services-empty'), identities.length === 0);
    const selected = identities.find((identity) => identity.id === this.selected?.id);
    if (selected === undefined) this.closeCredentials();
    else await this.refreshCredentials(selected);
  }

  private identityRow(identity: ServiceIdentity): HTMLTableRowElement {
    const row = document.createElement('tr');
    const name = rowHeader(identity.name);
    if (identity.description !== undefined) {
      const description = document.createElement('span');
      description.className = 'hint';
      description.textContent = identity.description;
      name.append(document.createElement('br'), description);
    }
    const actions = tableCell();
    actions.className = 'row-actions';
    const open = actionButton('Credentials', `Show the credentials of ${identity.name}`, 'secondary');
    open.addEventListener('click', () =>
      runAction(open, async () => {
        await this.refreshCredentials(identity);
        byId('credentials-heading').focus();
      }),
    );
    actions.append(open);
    if (identity.state === 'active') {
      const revoke = actionButton('Revoke', `Revoke service identity ${identity.name}`, 'danger');
      revoke.addEventListener('click', () =>
        runAction(revoke, async () => {
          await this.page.org.change<ServiceIdentity>('DELETE', ['service-identities', identity.id]);
          await this.refresh();
          announce(`Service identity “${identity.name}” and all its credentials were revoked.`);
          await this.page.changed();
        }),
      );
      actions.append(' ', revoke);
    }
    row.append(
      name,
      capabilityList(identity.capabilities),
      tableCell(identity.state),
      tableCell(timeElement(identity.createdAt)),
      actions,
    );
    return row;
  }

  private async refreshCredentials(identity: ServiceIdentity): Promise<void> {
    const credentials = await this.page.org.read<CredentialView[]>('service-identities', identity.id, 'credentials');
    this.selected = identity;
    byId('credentials-heading').textContent = `Credentials of ${identity.name}`;
    byId('credentials-body').replaceChildren(
      ...credentials.map((credential) => this.credentialRow(identity, credential)),
    );
    show(byId('create-credential'), identity.state === 'active');
    show(byId('credentials'), true);
  }

  private closeCredentials(): void {
    this.selected = undefined;
    show(byId('credentials'), false);
  }

  private credentialRow(identity: ServiceIdentity, credential: CredentialView): HTMLTableRowElement {
    const row = document.createElement('tr');
    const label = `credential ${credential.publicPrefix}`;
    const actions = tableCell();
    actions.className = 'row-actions';
    const path = ['service-identities', identity.id, 'credentials', credential.id];
    if (credential.state === 'active' && identity.state === 'active') {
      const rotate = actionButton('Rotate', `Rotate ${label}`, 'secondary');
      rotate.addEventListener('click', () =>
        runAction(rotate, async () => {
          const issued = await this.page.org.change<IssuedCredential>('POST', [...path, 'rotate'], {});
          await this.refreshCredentials(identity);
          this.revealToken(issued, `“${identity.name}” (replaces ${credential.publicPrefix})`);
          announce(`Rotated ${label}; the old token keeps working for a short overlap. Copy the new one below.`);
          await this.page.changed();
        }),
      );
      actions.append(rotate, ' ');
    }
    if (credential.state === 'active' || credential.state === 'rotated') {
      const revoke = actionButton('Revoke', `Revoke ${label}`, 'danger');
      revoke.addEventListener('click', () =>
        runAction(revoke, async () => {
          await this.page.org.change<CredentialView>('DELETE', path);
          await this.refreshCredentials(identity);
          announce(`Revoked ${label}; its token stopped working.`);
          await this.page.changed();
        }),
      );
      actions.append(revoke);
    }
    row.append(
      rowHeader(codeText(credential.publicPrefix)),
      capabilityList(credential.capabilities),
      tableCell(credential.state),
      tableCell(timeElement(credential.expiresAt)),
      tableCell(timeElement(credential.lastUsedAt)),
      actions,
    );
    return row;
  }

  private revealToken({ credential, token }: IssuedCredential, owner: string): void {
    const expires = new Date(credential.expiresAt).toLocaleString(undefined, { dateStyle: 'medium' });
    revealSecret(
      'service-secret',
      token,
      `Credential ${credential.publicPrefix} of ${owner}, valid until ${expires}.`,
      'The token was copied to the clipboard.',
    );
  }
}
