import { IdentityApi, IdentityApiError, isSignedOut } from './api.mjs';
import { AuditLogPanel } from './audit-log.panel.mjs';
import { MembersPanel } from './members.panel.mjs';
import {
  OrganizationApi,
  type Organization,
  type OrganizationContext,
  type OrganizationSummary,
} from './organizations.api.mjs';
import { ServiceIdentitiesPanel } from './service-identities.panel.mjs';
import { SingleSignOnPanel } from './sso.panel.mjs';
import { announce, byId, show, showError, wireForm } from './ui.mjs';

/** The organization ID of `/identity/organizations/{orgId}`: the only place the page learns it. */
function organizationIdFromUrl(): string {
  return decodeURIComponent(location.pathname.split('/')[3] ?? '');
}

/**
 * `/identity/organizations/{orgId}`: the organization's facts, members and invitations for every
 * member; the audit log, service identities, single sign-on, the link to provisioning (SCIM) and
 * settings for owners and admins.
 */
class OrganizationPage implements OrganizationContext {
  userId = '';
  manager = false;
  readonly names = new Map<string, string>();
  private readonly audit = new AuditLogPanel(this);
  private readonly members = new MembersPanel(this);
  private readonly services = new ServiceIdentitiesPanel(this);
  private readonly sso = new SingleSignOnPanel(this);

  constructor(readonly org: OrganizationApi) {}

  wire(): void {
    this.members.wire();
    this.audit.wire();
    this.services.wire();
    this.sso.wire();
    const provisioning = byId<HTMLAnchorElement>('provisioning-link');
    provisioning.href = `/identity/organizations/${encodeURIComponent(this.org.organizationId)}/provisioning`;
    wireForm('rename-organization', async ({ name }) => {
      const renamed = await this.org.change<Organization>('PATCH', [], { name });
      this.showFacts({ ...renamed, role: byId('organization-role').textContent ?? '' });
      announce(`Organization renamed to “${renamed.name}”.`);
      await this.changed();
    });
    wireForm('delete-organization', async ({ confirmation }, form) => {
      const slug = byId('organization-slug').textContent;
      if (confirmation?.trim() !== slug) {
        announce(`Nothing deleted: type the slug ${slug} exactly to confirm.`);
        return;
      }
      const deleted = await this.org.change<Organization>('DELETE', []);
      form.reset();
      show(byId('organization'), false);
      announce(`Organization “${deleted.name}” deleted. Its members can no longer open it.`);
    });
  }

  async load(): Promise<void> {
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
      if (error instanceof IdentityApiError && error.code === 'not_found') show(byId('organization-unavailable'), true);
      throw error;
    }
    this.manager = summary.role === 'owner' || summary.role === 'admin';
    for (const element of document.querySelectorAll<HTMLElement>('.manager-only')) show(element, this.manager);
    for (const element of document.querySelectorAll<HTMLElement>('.owner-only'))
      show(element, summary.role === 'owner');
    this.names.set(summary.id, summary.name);
    // Members, invitations and service identities first: the audit log names what they name.
    await Promise.all([this.members.refresh(), ...(this.manager ? [this.services.refresh(), this.sso.refresh()] : [])]);
    if (this.manager) await this.audit.reload();
    this.showFacts(summary);
    show(byId('organization'), true);
  }

  /** After a change: the newest audit events; a change that signed this user out shows that. */
  async changed(): Promise<boolean> {
    if (!this.manager) return true;
    try {
      await this.audit.reload();
      return true;
    } catch (error) {
      if (!isSignedOut(error)) throw error;
      this.signedOut();
      announce('That change signed you out everywhere; sign in again to continue.');
      return false;
    }
  }

  private showFacts(organization: OrganizationSummary): void {
    document.title = `${organization.name} — Tessera`;
    byId('organization-heading').textContent = organization.name;
    byId('organization-slug').textContent = organization.slug;
    byId('organization-id').textContent = organization.id;
    byId('organization-role').textContent = organization.role;
    byId<HTMLInputElement>('organization-new-name').value = organization.name;
  }

  private signedOut(): void {
    this.org.api.forgetCsrfToken();
    show(byId('organization'), false);
    show(byId('signed-out'), true);
  }
}

async function main(): Promise<void> {
  const page = new OrganizationPage(new OrganizationApi(await IdentityApi.load(), organizationIdFromUrl()));
  page.wire();
  await page.load();
}

main().catch(showError);
