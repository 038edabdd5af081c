import { IdentityApi, isSignedOut } from './api.mjs';
import {
  confirmingWithPasskey,
  type Membership,
  type Organization,
  type OrganizationSummary,
} from './organizations.api.mjs';
import { announce, byId, codeText, rowHeader, show, showError, tableCell, wireForm } from './ui.mjs';

/** The page of one organization: the ID in the URL is the only way an organization is chosen. */
function organizationHref(id: string): string {
  return `/identity/organizations/${encodeURIComponent(id)}`;
}

/**
 * The invitation token from a pasted enrolment link (`…/identity/enroll#token=…`) or a bare token.
 * Only the fragment is read, as on the enrolment page.
 */
function invitationToken(text: string): string {
  const trimmed = text.trim();
  const hash = trimmed.indexOf('#');
  if (hash < 0) return trimmed;
  return new URLSearchParams(trimmed.slice(hash + 1)).get('token') ?? '';
}

/** `/identity/organizations`: list, create (step-up), accept an invitation with this account. */
class OrganizationsPage {
  constructor(private readonly api: IdentityApi) {}

  wire(): void {
    wireForm('create-organization', async ({ name, slug }, form) => {
      announce('Creating the organization…');
      const organization = await confirmingWithPasskey(this.api, () =>
        this.api.call<Organization>('POST', this.api.route('organizations'), { name, slug }),
      );
      form.reset();
      await this.refresh();
      announce(`Organization “${organization.name}” created; you are its owner.`);
      document.getElementById(`organization-link-${organization.id}`)?.focus();
    });
    wireForm('accept-invitation', async ({ link }, form) => {
      const membership = await this.api.call<Membership>('POST', this.api.route('invitationAccept'), {
        token: invitationToken(link ?? ''),
      });
      form.reset();
      await this.refresh();
      announce(`Invitation accepted: you joined as ${membership.role}.`);
      document.getElementById(`organization-link-${membership.organizationId}`)?.focus();
    });
  }

  /** Lists the organizations; a missing, expired or revoked session shows the sign-in hint. */
  async refresh(): Promise<void> {
    let organizations: OrganizationSummary[];
    try {
      organizations = await this.api.call<OrganizationSummary[]>('GET', this.api.route('organizations'));
    } catch (error) {
      if (!isSignedOut(error)) throw error;
      this.api.forgetCsrfToken();
      show(byId('organizations'), false);
      show(byId('signed-out'), true);
      return;
    }
    const rows = organizations.map((organization) => {
      const row = document.createElement('tr');
      const link = document.createElement('a');
      link.href = organizationHref(organization.id);
      link.id = `organization-link-${organization.id}`;
      link.textContent = organization.name;
      row.append(
        rowHeader(link),
        tableCell(codeText(organization.slug)),
        tableCell(organization.role),
        tableCell(codeText(organization.id)),
      );
      return row;
    });
    byId('organizations-body').replaceChildren(...rows);
    show(byId('organizations-table'), rows.length > 0);
    show(byId('organizations-empty'), rows.length === 0);
    show(byId('signed-out'), false);
    show(byId('organizations'), true);
  }
}

async function main(): Promise<void> {
  const page = new OrganizationsPage(await IdentityApi.load());
  page.wire();
  await page.refresh();
}

main().catch(showError);
