/** The SAML signature policies (identity-http §6) with what each asks of a response. */
export const SIGNATURE_POLICIES: readonly { readonly value: string; readonly label: string }[] = [
  { value: 'assertion', label: 'The assertion must be signed (recommended)' },
  { value: 'response', label: 'The response must be signed' },
  { value: 'both', label: 'Both the response and the assertion must be signed' },
  { value: 'assertion_or_response', label: 'Either the response or the assertion must be signed' },
];

/** A labelled text field of a provider form; `id` is also the control's id. */
function field(id: string, name: string, label: string, attributes: string, hint?: string): string {
  const described = hint === undefined ? '' : ` aria-describedby="${id}-hint"`;
  return `<div class="field">
<label for="${id}">${label}</label>
<input id="${id}" name="${name}" ${attributes} autocomplete="off" spellcheck="false"${described}>
${hint === undefined ? '' : `<p class="hint" id="${id}-hint">${hint}</p>`}
</div>`;
}

/** A labelled textarea for pasted documents (metadata XML, certificates). */
function area(id: string, name: string, label: string, hint: string, maxLength: number): string {
  return `<div class="field">
<label for="${id}">${label}</label>
<textarea id="${id}" name="${name}" rows="5" maxlength="${maxLength}" spellcheck="false" autocomplete="off" aria-describedby="${id}-hint"></textarea>
<p class="hint" id="${id}-hint">${hint}</p>
</div>`;
}

const PROVIDER_ID_HINT =
  'Lower-case letters, digits, <code>-</code> and <code>_</code> (up to 63), e.g. <code>okta</code>; part of the URLs your identity provider is given, so it cannot change later.';

/** What the two forms share: the provider ID, the name on the sign-in page and the JIT switch. */
function common(prefix: string): string {
  return `${field(`${prefix}-provider-id`, 'providerId', 'Provider ID', 'required maxlength="63" pattern="[a-z0-9][a-z0-9_\\-]{0,62}"', PROVIDER_ID_HINT)}
${field(`${prefix}-display-name`, 'displayName', 'Display name', 'required maxlength="200"', 'Shown on the sign-in page as “Sign in with …”.')}`;
}

function jit(prefix: string): string {
  return `<div class="check">
<input type="checkbox" id="${prefix}-jit" name="jit" aria-describedby="${prefix}-jit-hint">
<label for="${prefix}-jit">Create accounts on first sign-in (just-in-time)</label>
</div>
<p class="hint" id="${prefix}-jit-hint">Off: only people who already linked this provider to their account can sign in. On: anyone the provider signs in gets a new account and joins this organization as <strong>viewer</strong>. Accounts are never matched by email.</p>`;
}

const POLICY_OPTIONS = SIGNATURE_POLICIES.map(({ value, label }) => `<option value="${value}">${label}</option>`).join(
  '',
);

/**
 * The "Single sign-on" panel of the organization page (owners and admins, `.manager-only`): the
 * providers with state, protocol and linked identities; the URLs to paste into the identity
 * provider, each with a copy button (filled by `client/sso.panel.mts`); the forms to add an OIDC
 * or a SAML provider; a link to the organization's sign-in page.
 */
export const SSO_PANEL = `<section class="panel manager-only" aria-labelledby="sso-heading">
<h3 id="sso-heading">Single sign-on</h3>
<p>Let members sign in through your company’s identity provider (OIDC or SAML). Adding, changing, disabling, enabling and deleting a provider need a recent passkey check. Disabling a provider signs out everyone who signed in through it, at once; they stay signed out after it is enabled again.</p>
<p>Your organization’s sign-in page: <a id="sso-sign-in-page" href="#"></a></p>
<p id="sso-empty" hidden>No single sign-on providers yet.</p>
<div class="table-wrap"><table id="sso-table">
<thead><tr><th scope="col">Provider</th><th scope="col">Protocol</th><th scope="col">State</th><th scope="col">Linked identities</th><th scope="col">Just-in-time</th><th scope="col">Actions</th></tr></thead>
<tbody id="sso-body"></tbody>
</table></div>

<section id="sso-details" class="subpanel" aria-labelledby="sso-details-heading" hidden>
<h4 id="sso-details-heading" tabindex="-1"></h4>
<p id="sso-details-hint"></p>
<div id="sso-details-urls"></div>
</section>

<form id="add-oidc-provider" class="subpanel">
<h4 id="add-oidc-heading">Add an OIDC provider</h4>
${common('oidc')}
${field('oidc-issuer', 'issuer', 'Issuer URL', 'required type="url" maxlength="2048"', 'Exactly as the provider names itself (its discovery document is fetched and checked now): https, or <code>http://localhost</code> in development.')}
${field('oidc-client-id', 'clientId', 'Client ID', 'required maxlength="200"')}
${field('oidc-client-secret', 'clientSecret', 'Client secret (optional)', 'type="password" maxlength="512"', 'Leave empty for a public client (PKCE only). Stored encrypted and never shown again.')}
${jit('oidc')}
<button type="submit">Add OIDC provider</button>
</form>

<form id="add-saml-provider" class="subpanel">
<h4 id="add-saml-heading">Add a SAML provider</h4>
${common('saml')}
${area('saml-metadata', 'idpMetadataXml', 'Identity provider metadata XML', 'Paste the metadata document, or leave it empty and fill in the three fields below.', 524288)}
${field('saml-entity-id', 'idpEntityId', 'Identity provider entity ID', 'maxlength="1024"')}
${field('saml-sso-url', 'ssoUrl', 'Single sign-on URL (HTTP-Redirect)', 'type="url" maxlength="2048"', 'https without a query, or <code>http://localhost</code> in development.')}
${area('saml-certificates', 'certificates', 'Signing certificates (PEM)', 'One to four <code>-----BEGIN CERTIFICATE-----</code> blocks.', 65536)}
<div class="field">
<label for="saml-signature-policy">Signatures required</label>
<select id="saml-signature-policy" name="signaturePolicy">${POLICY_OPTIONS}</select>
</div>
${jit('saml')}
<button type="submit">Add SAML provider</button>
</form>
</section>`;
