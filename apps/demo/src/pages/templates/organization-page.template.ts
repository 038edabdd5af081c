import type { PageTemplate } from './page-layout.template.js';
import { SIGNED_OUT_SECTION } from './organizations-page.template.js';
import { SSO_PANEL } from './sso-panel.template.js';

const ROLE_OPTIONS = ['viewer', 'publisher', 'admin', 'owner']
  .map((role) => `<option value="${role}">${role}</option>`)
  .join('');

/**
 * A secret shown once (an invitation link, a service token, a SCIM token): hidden until a script
 * fills the read-only field with `revealSecret` (client/ui.mts); never stored by the page.
 *
 * @example
 * secretBlock('scim-secret', 'Store the new token', 'SCIM token', 'Paste it into your identity provider now.');
 */
export function secretBlock(id: string, heading: string, label: string, warning: string): string {
  return `<section id="${id}" class="secret-block" aria-labelledby="${id}-heading" hidden>
<h4 id="${id}-heading" tabindex="-1">${heading}</h4>
<p class="warning"><strong>Shown only this once.</strong> ${warning}</p>
<p id="${id}-purpose"></p>
<div class="inline-form">
<label for="${id}-value">${label}</label>
<input id="${id}-value" readonly spellcheck="false" autocomplete="off" aria-describedby="${id}-purpose">
<button type="button" id="${id}-copy" class="secondary">Copy the ${label.toLowerCase()}</button>
</div>
</section>`;
}

const MEMBERS = `<section class="panel" aria-labelledby="members-heading">
<h3 id="members-heading">Members</h3>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Member</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Member since</th><th scope="col" class="manager-only">Actions</th></tr></thead>
<tbody id="members-body"></tbody>
</table></div>
<div id="members-feedback"></div>
<p class="hint manager-only">An organization always keeps at least one owner. Making or unmaking an owner, and removing anyone, needs a recent passkey check; changing someone’s role signs them out everywhere.</p>
</section>

<section class="panel" aria-labelledby="invitations-heading">
<h3 id="invitations-heading">Invitations</h3>
<p id="invitations-empty" hidden>No invitations yet.</p>
<div class="table-wrap"><table id="invitations-table">
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Expires</th><th scope="col" class="manager-only">Actions</th></tr></thead>
<tbody id="invitations-body"></tbody>
</table></div>
<form id="create-invitation" class="manager-only" data-reveals="invitation-secret">
<div class="field">
<label for="invitation-email">Email of the person to invite</label>
<input id="invitation-email" name="email" type="email" required minlength="3" maxlength="320" autocomplete="off">
</div>
<div class="field">
<label for="invitation-role">Role</label>
<select id="invitation-role" name="role">${ROLE_OPTIONS}</select>
</div>
<button type="submit">Create invitation</button>
</form>
${secretBlock(
  'invitation-secret',
  'Share the enrolment link',
  'Enrolment link',
  'Send it to the invitee yourself; the token is in the part after <code>#</code>, which browsers never send to a server. Anyone holding the link can join once, until it expires or you revoke it.',
)}
</section>`;

const AUDIT = `<section class="panel manager-only" aria-labelledby="audit-heading">
<h3 id="audit-heading">Audit log</h3>
<p class="hint">Newest first.</p>
<div class="table-wrap"><table>
<thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Target</th><th scope="col">Outcome</th><th scope="col">Request</th></tr></thead>
<tbody id="audit-body"></tbody>
</table></div>
<p id="audit-end" class="hint" hidden>That is every event.</p>
<p><button type="button" id="audit-more" class="secondary" hidden>Load more</button></p>
<p>Export every event (newest first): <a id="audit-export-ndjson" download>NDJSON</a> · <a id="audit-export-csv" download>CSV</a></p>
<p class="hint">The download streams from the server. A complete file ends with a trailer line carrying a cursor; a file without one was cut short.</p>
</section>`;

const SERVICES = `<section class="panel manager-only" aria-labelledby="services-heading">
<h3 id="services-heading">Service identities</h3>
<p>Non-human callers (CI jobs, integrations) authenticate with a bearer token limited to this organization and to the capabilities listed here. Creating, revoking and issuing credentials need a recent passkey check.</p>
<p id="services-empty" hidden>No service identities yet.</p>
<div class="table-wrap"><table id="services-table">
<thead><tr><th scope="col">Name</th><th scope="col">Capabilities</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
<tbody id="services-body"></tbody>
</table></div>
<form id="create-service">
<div class="field">
<label for="service-name">Name</label>
<input id="service-name" name="name" required maxlength="200" autocomplete="off">
</div>
<div class="field">
<label for="service-description">Description (optional)</label>
<input id="service-description" name="description" maxlength="2000" autocomplete="off">
</div>
<div class="field">
<label for="service-capabilities">Capabilities</label>
<input id="service-capabilities" name="capabilities" required autocomplete="off" spellcheck="false" aria-describedby="service-capabilities-hint">
<p class="hint" id="service-capabilities-hint">Separated by spaces or commas, e.g. <code>package.publish</code>. Only capabilities the server allows for services and that you hold yourself here.</p>
</div>
<div class="field">
<label for="service-lifetime">First credential’s lifetime in days (optional)</label>
<input id="service-lifetime" name="lifetimeDays" type="number" min="1" max="90" step="1" inputmode="numeric" aria-describedby="service-lifetime-hint">
<p class="hint" id="service-lifetime-hint">1–90 days; empty means the server’s default (30 days).</p>
</div>
<button type="submit">Create service identity</button>
</form>
${secretBlock(
  'service-secret',
  'Store the new token',
  'Secret token',
  'Store it in the calling system’s secret store now: the server keeps only a digest and cannot show it again. Send it as <code>Authorization: Bearer …</code>.',
)}

<section id="credentials" class="subpanel" aria-labelledby="credentials-heading" hidden>
<h4 id="credentials-heading" tabindex="-1">Credentials</h4>
<div class="table-wrap"><table>
<thead><tr><th scope="col">Public prefix</th><th scope="col">Capabilities</th><th scope="col">State</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead>
<tbody id="credentials-body"></tbody>
</table></div>
<p class="hint">Rotating issues a new token and keeps the old one working for a short overlap, so callers can switch without downtime.</p>
<form id="create-credential" class="inline-form" data-reveals="service-secret">
<label for="credential-capabilities">Capabilities of a new credential</label>
<input id="credential-capabilities" name="capabilities" required autocomplete="off" spellcheck="false">
<button type="submit">Issue a credential</button>
</form>
</section>
</section>`;

/** What SCIM provisioning does, and the link to the organization's provisioning page (`href` set by the script). */
const PROVISIONING = `<section class="panel manager-only" aria-labelledby="provisioning-link-heading">
<h3 id="provisioning-link-heading">Provisioning (SCIM)</h3>
<p>Let your identity provider (Okta, Microsoft Entra ID or another SCIM 2.0 client) add, update and remove this organization’s members, and set their roles from its groups.</p>
<p><a id="provisioning-link" href="/identity/organizations">Manage provisioning (SCIM)</a></p>
</section>`;

const SETTINGS = `<section class="panel manager-only" aria-labelledby="settings-heading">
<h3 id="settings-heading">Settings</h3>
<form id="rename-organization" class="inline-form">
<label for="organization-new-name">Organization name</label>
<input id="organization-new-name" name="name" required maxlength="200" autocomplete="off">
<button type="submit" class="secondary">Rename</button>
</form>
<form id="delete-organization" class="inline-form owner-only">
<label for="delete-confirmation">To delete this organization, type its slug</label>
<input id="delete-confirmation" name="confirmation" required autocomplete="off" spellcheck="false">
<button type="submit" class="danger">Delete organization</button>
</form>
</section>`;

/**
 * `/identity/organizations/{orgId}`: one organization, chosen only by the ID in the URL (the
 * server keeps no current organization). Everyone with a membership sees it and its members and
 * invitations; owners and admins (`.manager-only`) also manage members, invitations, the audit log,
 * service identities, single sign-on, the link to provisioning (SCIM) and settings. The server decides every permission; hiding is only tidiness.
 */
export const ORGANIZATION_PAGE: PageTemplate = {
  title: 'Organization',
  script: 'organization.page.js',
  wide: true,
  body: `<p><a href="/identity/organizations">All your organizations</a></p>
${SIGNED_OUT_SECTION}
<p id="organization-unavailable" class="notice" hidden>This organization does not exist, was deleted, or you are not a member of it. Pick one from <a href="/identity/organizations">your organizations</a>.</p>

<section id="organization" aria-labelledby="organization-heading" hidden>
<h2 id="organization-heading" tabindex="-1"></h2>
<dl class="facts">
<dt>Slug</dt><dd><code id="organization-slug"></code></dd>
<dt>Organization ID</dt><dd><code id="organization-id"></code></dd>
<dt>Your role</dt><dd id="organization-role"></dd>
</dl>
${MEMBERS}
${AUDIT}
${SERVICES}
${SSO_PANEL}
${PROVISIONING}
${SETTINGS}
</section>`,
};
