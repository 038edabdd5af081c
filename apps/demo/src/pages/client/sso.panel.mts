import {
  explainProviderError,
  oidcRegistration,
  samlRegistration,
  type FederationProviderView,
  type ProviderAction,
} from './federation.api.mjs';
import type { OrganizationContext } from './organizations.api.mjs';
import {
  actionButton,
  announce,
  byId,
  codeText,
  copyText,
  rowHeader,
  runAction,
  show,
  tableCell,
  wireForm,
} from './ui.mjs';

/** Path segments of the providers collection under the organization. */
const PROVIDERS = ['federation', 'providers'] as const;

/**
 * A read-only URL with a copy button, for pasting into the identity provider: `label` names the
 * field ("Redirect URI"), `what` the button ("Copy the redirect URI").
 */
function copyField(id: string, label: string, what: string, value: string): HTMLElement {
  const wrap = document.createElement('div');
  wrap.className = 'inline-form copy-field';
  const name = document.createElement('label');
  name.htmlFor = id;
  name.textContent = label;
  const input = document.createElement('input');
  input.id = id;
  input.readOnly = true;
  input.spellcheck = false;
  input.value = value;
  const copy = actionButton(`Copy the ${what}`, `Copy the ${what}`, 'secondary');
  copy.addEventListener('click', () => copyText(value, `The ${what} was copied to the clipboard.`, 'select the field'));
  wrap.append(name, input, copy);
  return wrap;
}

/** A `<dl class="facts">` of label → text (code-formatted) pairs. */
function facts(entries: readonly (readonly [string, string])[]): HTMLDListElement {
  const list = document.createElement('dl');
  list.className = 'facts';
  for (const [term, value] of entries) {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.append(codeText(value, 'id'));
    list.append(dt, dd);
  }
  return list;
}

const PROTOCOL_NAMES: Record<string, string> = { oidc: 'OIDC', saml: 'SAML' };

/**
 * "Single sign-on" on the organization page (owners and admins): the organization's OIDC and SAML
 * providers with state, protocol and linked identities; adding one; the URLs to paste into the
 * identity provider with copy buttons; disabling (the kill switch), enabling and deleting. Every
 * change confirms with a passkey when the server asks for it; failures say what to check.
 */
export class SingleSignOnPanel {
  /** The provider whose connection details are open, if any. */
  private selected: string | undefined;

  constructor(private readonly page: OrganizationContext) {}

  wire(): void {
    const path = `/identity/organizations/${encodeURIComponent(this.page.org.organizationId)}/sso`;
    const link = byId<HTMLAnchorElement>('sso-sign-in-page');
    link.href = path;
    link.textContent = `${location.origin}${path}`;
    wireForm('add-oidc-provider', (values, form) => this.add(() => oidcRegistration(values), 'add_oidc', form));
    wireForm('add-saml-provider', (values, form) => this.add(() => samlRegistration(values), 'add_saml', form));
  }

  async refresh(): Promise<void> {
    const providers = await this.attempt('list', () => this.page.org.read<FederationProviderView[]>(...PROVIDERS));
    byId('sso-body').replaceChildren(...providers.map((provider) => this.row(provider)));
    show(byId('sso-table'), providers.length > 0);
    show(byId('sso-empty'), providers.length === 0);
    const selected = providers.find((provider) => provider.providerId === this.selected);
    if (selected === undefined) this.closeDetails();
    else this.showDetails(selected, false);
  }

  /** Runs a provider call, turning its failure into one that says what to check. */
  private async attempt<T>(action: ProviderAction, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw explainProviderError(error, action);
    }
  }

  private async add(body: () => Record<string, unknown>, action: ProviderAction, form: HTMLFormElement) {
    const registration = body();
    const created = await this.attempt(action, () =>
      this.page.org.change<FederationProviderView>('POST', PROVIDERS, registration),
    );
    form.reset();
    await this.refresh();
    this.showDetails(created, true);
    const paste = created.protocol === 'oidc' ? 'redirect URI' : 'ACS URL and SP entity ID (or the metadata URL)';
    announce(
      `Provider “${created.displayName}” added and enabled. Paste its ${paste} below into your identity provider.`,
    );
    await this.page.changed();
  }

  private row(provider: FederationProviderView): HTMLTableRowElement {
    const row = document.createElement('tr');
    const name = rowHeader(provider.displayName, document.createElement('br'), codeText(provider.providerId));
    if (provider.source === 'static') {
      const badge = document.createElement('strong');
      badge.className = 'badge';
      badge.textContent = 'configured on the server';
      name.append(' ', badge);
    }
    const actions = tableCell();
    actions.className = 'row-actions';
    const details = actionButton('Details', `Show the connection details of ${provider.displayName}`, 'secondary');
    details.addEventListener('click', () => this.showDetails(provider, true));
    actions.append(details, ' ');
    const target = provider.state === 'enabled' ? 'disable' : 'enable';
    const toggle = actionButton(
      target === 'disable' ? 'Disable' : 'Enable',
      `${target === 'disable' ? 'Disable' : 'Enable'} provider ${provider.displayName}`,
      target === 'disable' ? 'danger' : 'secondary',
    );
    toggle.addEventListener('click', () => void runAction(toggle, () => this.setState(provider, target)));
    actions.append(toggle);
    if (provider.source === 'organization') {
      const remove = actionButton('Delete', `Delete provider ${provider.displayName}`, 'danger');
      remove.addEventListener('click', () => void runAction(remove, () => this.remove(provider)));
      actions.append(' ', remove);
    }
    row.append(
      name,
      tableCell(PROTOCOL_NAMES[provider.protocol] ?? provider.protocol),
      tableCell(provider.state),
      tableCell(String(provider.linkedIdentities)),
      tableCell(provider.jit ? 'on (new users join as viewer)' : 'off'),
      actions,
    );
    return row;
  }

  private async setState(provider: FederationProviderView, target: 'disable' | 'enable'): Promise<void> {
    await this.attempt(target, () =>
      this.page.org.change<FederationProviderView>('POST', [...PROVIDERS, provider.providerId, target]),
    );
    await this.refresh();
    announce(
      target === 'disable'
        ? `Provider “${provider.displayName}” disabled: everyone who signed in through it was signed out, and the sign-in page no longer offers it.`
        : `Provider “${provider.displayName}” enabled: the sign-in page offers it again. Sessions ended by the disable stay ended.`,
    );
    await this.page.changed();
  }

  private async remove(provider: FederationProviderView): Promise<void> {
    await this.attempt('delete', () => this.page.org.change<void>('DELETE', [...PROVIDERS, provider.providerId]));
    await this.refresh();
    announce(
      `Provider “${provider.displayName}” deleted: everyone who signed in through it was signed out. Accounts it created stay.`,
    );
    await this.page.changed();
  }

  /** The facts and the URLs to paste into the identity provider, each with a copy button. */
  private showDetails(provider: FederationProviderView, focus: boolean): void {
    this.selected = provider.providerId;
    const oidc = provider.protocol === 'oidc';
    byId('sso-details-heading').textContent = `Connection details of ${provider.displayName}`;
    byId('sso-details-hint').textContent = oidc
      ? 'In your identity provider, register a web application (authorization code flow with PKCE) with this redirect URI, and enter its client ID and secret here.'
      : 'In your identity provider, add a SAML application with this ACS URL (HTTP-POST binding) and SP entity ID, or let it read the metadata URL.';
    const urls = oidc
      ? [copyField('sso-redirect-uri', 'Redirect URI', 'redirect URI', provider.redirectUri ?? '')]
      : [
          copyField('sso-acs-url', 'ACS URL', 'ACS URL', provider.acsUrl ?? ''),
          copyField('sso-sp-entity-id', 'SP entity ID', 'SP entity ID', provider.spEntityId ?? ''),
          copyField('sso-metadata-url', 'Metadata URL', 'metadata URL', provider.metadataUrl ?? ''),
        ];
    const described = oidc
      ? facts([
          ['Issuer', provider.issuer ?? ''],
          ['Client ID', provider.clientId ?? ''],
          ['Client secret', provider.hasClientSecret === true ? 'stored (never shown)' : 'none (public client)'],
        ])
      : facts([
          ['Identity provider entity ID', provider.idpEntityId ?? ''],
          ['Single sign-on URL', provider.ssoUrl ?? ''],
          ['Signatures required', provider.signaturePolicy ?? ''],
        ]);
    byId('sso-details-urls').replaceChildren(described, ...urls);
    show(byId('sso-details'), true);
    if (focus) byId('sso-details-heading').focus();
  }

  private closeDetails(): void {
    this.selected = undefined;
    show(byId('sso-details'), false);
  }
}
