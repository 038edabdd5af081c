import { IdentityApi, IdentityApiError, isSignedOut } from './api.mjs';
import { OrganizationApi, type OrganizationContext, type OrganizationSummary } from './organizations.api.mjs';
import { ProvisioningEventsPanel } from './provisioning-events.panel.mjs';
import { ScimConnectionsPanel } from './scim-connections.panel.mjs';
import { announce, byId, show, showError } from './ui.mjs';

/** The organization ID of `/identity/organizations/{orgId}/provisioning`: the only place the page learns it. */
function organizationIdFromUrl(): string {
  return decodeURIComponent(location.pathname.split('/')[3] ?? '');
}

/**
 * `/identity/organizations/{orgId}/provisioning`: SCIM provisioning of one organization, for its
 * owners and admins — the base URL, the connections with their rules and tokens, and the newest
 * provisioning events. Anyone else (and an unknown organization) gets a notice; a server with SCIM
 * turned off says so.
 */
class ProvisioningPage implements OrganizationContext {
  userId = '';
  manager = false;
  readonly names = new Map<string, string>();
  private readonly connections = new ScimConnectionsPanel(this);
  private readonly events = new ProvisioningEventsPanel(this);

  constructor(readonly org: OrganizationApi) {}

  wire(): void {
    const back = byId<HTMLAnchorElement>('provisioning-back');
    back.href = `/identity/organizations/${encodeURIComponent(this.org.organizationId)}`;
    this.connections.wire();
    this.events.wire();
  }

  async load(): Promise<void> {
    if (this.org.api.config.features['scim'] === false) {
      show(byId('provisioning-disabled'), true);
      return;
    }
    let summary: OrganizationSummary;
    try {
      const [me, found] = await Promise.all([
        this.org.api.call<{ userId: string }>('GET', this.org.api.route('me')),
        this.org.read<OrganizationSummary>(),
      ]);
      this.userId = me.userId;
      summary = found;
    } catch (error) {
      if (isSignedOut(error)) return this.signedOut();
      if (error instanceof IdentityApiError && (error.code === 'not_found' || error.code === 'request_invalid')) {
        show(byId('provisioning-unavailable'), true);
        return;
      }
      throw error;
    }
    this.manager = summary.role === 'owner' || summary.role === 'admin';
    byId('provisioning-back').textContent = `Back to ${summary.name}`;
    if (!this.manager) {
      show(byId('provisioning-unavailable'), true);
      return;
    }
    document.title = `Provisioning (SCIM) of ${summary.name} — Tessera`;
    byId('provisioning-heading').textContent = summary.name;
    await Promise.all([this.connections.refresh(), this.events.reload()]);
    show(byId('provisioning'), true);
  }

  /** After a change: the newest provisioning events; a change that signed this user out shows that. */
  async changed(): Promise<boolean> {
    try {
      await this.events.reload();
      return true;
    } catch (error) {
      if (!isSignedOut(error)) throw error;
      this.signedOut();
      announce('Your session ended; sign in again to continue.');
      return false;
    }
  }

  private signedOut(): void {
    this.org.api.forgetCsrfToken();
    show(byId('provisioning'), false);
    show(byId('signed-out'), true);
  }
}

async function main(): Promise<void> {
  const page = new ProvisioningPage(new OrganizationApi(await IdentityApi.load(), organizationIdFromUrl()));
  page.wire();
  await page.load();
}

main().catch(showError);
