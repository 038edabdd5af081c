import { secretBlock } from './organization-page.template.js';
import { SIGNED_OUT_SECTION } from './organizations-page.template.js';
import type { PageTemplate } from './page-layout.template.js';

const CONNECT = `<section class="panel" aria-labelledby="scim-connect-heading">
<h3 id="scim-connect-heading">Connect your identity provider</h3>
<div class="inline-form copy-field">
<label for="scim-base-url">SCIM base URL</label>
<input id="scim-base-url" readonly spellcheck="false" autocomplete="off">
<button type="button" id="scim-base-url-copy" class="secondary">Copy the SCIM base URL</button>
</div>
<ul class="hint">
<li><strong>Okta</strong>: an app integration with SCIM provisioning (SCIM 2.0). Paste the base URL as the <em>SCIM connector base URL</em>, use <code>userName</code> as the unique identifier field, <em>HTTP Header</em> as the authentication mode with the token below, and turn on push new users, push profile updates, push groups and deactivate users.</li>
<li><strong>Microsoft Entra ID</strong>: an enterprise application, Provisioning, mode <em>Automatic</em>. Paste the base URL as the <em>Tenant URL</em> and the token as the <em>Secret Token</em>, then <em>Test Connection</em>.</li>
</ul>
</section>`;

const CONNECTIONS = `<section class="panel" aria-labelledby="scim-connections-heading">
<h3 id="scim-connections-heading">Connections</h3>
<p>Each connection has its own bearer token for this organization only. Creating, rotating and revoking need a recent passkey check. Revoking stops the identity provider at once; the people it provisioned stay members.</p>
<p id="scim-empty" hidden>No SCIM connections yet.</p>
<div class="table-wrap"><table id="scim-table">
<thead><tr><th scope="col">Provider</th><th scope="col">State</th><th scope="col">Group → role rules</th><th scope="col">Token issued</th><th scope="col">Created</th><th scope="col">Revoked</th><th scope="col">Actions</th></tr></thead>
<tbody id="scim-body"></tbody>
</table></div>
<p class="hint">Rotating issues a new token; the previous one keeps working for 10 more minutes, so the identity provider can be switched over without a gap. The rules of a connection cannot change: revoke it and create a new one for the same provider, which takes over the people provisioned so far.</p>

<section id="scim-revoke" class="subpanel" aria-labelledby="scim-revoke-heading" hidden>
<h4 id="scim-revoke-heading" tabindex="-1"></h4>
<p class="warning">Its tokens stop working at once and the identity provider can no longer add, change or remove anyone. People it provisioned stay members with their roles.</p>
<p class="actions"><button type="button" id="scim-revoke-confirm" class="danger">Yes, revoke the connection</button> <button type="button" id="scim-revoke-cancel" class="secondary">Cancel</button></p>
</section>

${secretBlock(
  'scim-secret',
  'Store the new token',
  'Bearer token',
  'Copy it now and paste it into your identity provider: the server keeps only a digest, so <strong>you will not see it again</strong>. Lost it? Rotate the connection for a new one.',
)}

<form id="create-scim-connection" class="subpanel" data-reveals="scim-secret">
<h4 id="create-scim-heading">Create a connection</h4>
<div class="field">
<label for="scim-provider-name">Identity provider</label>
<select id="scim-provider-name" name="providerName" aria-describedby="scim-provider-name-hint"><option value="okta">Okta (okta)</option><option value="entra">Microsoft Entra ID (entra)</option><option value="generic">Another SCIM 2.0 client (generic)</option></select>
<p class="hint" id="scim-provider-name-hint">One active connection per identity provider.</p>
</div>
<fieldset class="choices" aria-describedby="scim-rules-hint">
<legend>Group → role rules</legend>
<p class="hint" id="scim-rules-hint">A provisioned person gets the highest role among the rules their groups match, and <strong>viewer</strong> when none matches. A display name matches regardless of case; an external ID exactly. Provisioning never makes anyone an owner.</p>
<div id="scim-rules"></div>
<p id="scim-rules-empty" class="hint">No rules: everyone provisioned joins as viewer.</p>
<p><button type="button" id="scim-add-rule" class="secondary">Add a rule</button></p>
</fieldset>
<button type="submit">Create connection</button>
</form>
</section>`;

const EVENTS = `<section class="panel" aria-labelledby="scim-events-heading">
<h3 id="scim-events-heading">Recent provisioning events</h3>
<p class="hint">The newest 20 from the audit log, newest first: connection changes, and every user, group and membership change a SCIM client made (reason <code>scim:&lt;provider&gt;</code>).</p>
<p id="scim-events-empty" hidden>No provisioning events yet.</p>
<div class="table-wrap"><table id="scim-events-table">
<thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Target</th><th scope="col">Outcome</th><th scope="col">Request</th></tr></thead>
<tbody id="scim-events-body"></tbody>
</table></div>
<p id="scim-events-partial" class="hint" hidden></p>
<p><button type="button" id="scim-events-refresh" class="secondary">Refresh events</button></p>
</section>`;

/**
 * `/identity/organizations/{orgId}/provisioning`: SCIM provisioning of one organization, for its
 * owners and admins (the server decides; anyone else gets a notice). The SCIM base URL to paste
 * into Okta or Microsoft Entra ID with a copy button, the connections with their group-to-role
 * rules, creating one (the token shown once), rotating and revoking, and the newest provisioning
 * events. Filled by `client/provisioning.page.mts`; the organization is the ID in the URL.
 *
 * @example
 * router.get('/identity/organizations/:orgId/provisioning', (exchange) => exchange.respond({ body: renderPage(PROVISIONING_PAGE, assets) }));
 */
export const PROVISIONING_PAGE: PageTemplate = {
  title: 'Provisioning (SCIM)',
  script: 'provisioning.page.js',
  wide: true,
  body: `<p><a id="provisioning-back" href="/identity/organizations">Back to the organization</a></p>
${SIGNED_OUT_SECTION}
<p id="provisioning-unavailable" class="notice" hidden>This organization does not exist, was deleted, or you cannot manage its provisioning: only its owners and admins can. Pick one from <a href="/identity/organizations">your organizations</a>.</p>
<p id="provisioning-disabled" class="notice" hidden>SCIM provisioning is turned off on this server.</p>

<section id="provisioning" aria-labelledby="provisioning-heading" hidden>
<h2 id="provisioning-heading" tabindex="-1"></h2>
<p>Your identity provider creates this organization’s members, keeps their profiles up to date and removes them when they leave, without anyone clicking here. Removing someone ends their membership and this organization’s single sign-on sessions and device tokens; their account, passkeys and other organizations stay.</p>
${CONNECT}
${CONNECTIONS}
${EVENTS}
</section>`,
};
