import { IdentityApiError } from './api.mjs';

/** `FederationProvider` (the provider view of the management routes, issue 14): never a secret. */
export interface FederationProviderView {
  readonly providerId: string;
  readonly organizationId: string;
  readonly protocol: 'oidc' | 'saml';
  readonly displayName: string;
  readonly state: 'enabled' | 'disabled';
  readonly jit: boolean;
  /** `static`: declared in the server's configuration (read-only here, except disable/enable). */
  readonly source: 'static' | 'organization';
  readonly linkedIdentities: number;
  readonly startUrl: string;
  readonly signInPageUrl: string;
  readonly version?: number;
  readonly createdAt?: string;
  readonly updatedAt?: string;
  /** OIDC. */
  readonly issuer?: string;
  readonly clientId?: string;
  readonly hasClientSecret?: boolean;
  readonly redirectUri?: string;
  /** SAML. */
  readonly idpEntityId?: string;
  readonly ssoUrl?: string;
  readonly signaturePolicy?: string;
  readonly acsUrl?: string;
  readonly spEntityId?: string;
  readonly metadataUrl?: string;
}

/** `FederationSignInOption` (the public list an organization's sign-in page shows). */
export interface FederationSignInOption {
  readonly providerId: string;
  readonly protocol: 'oidc' | 'saml';
  readonly displayName: string;
  readonly startUrl: string;
}

/** `GET /identity/v1/federation/{orgId}/providers`: the enabled providers, for anyone. */
export function signInOptionsPath(organizationId: string): string {
  return `/identity/v1/federation/${encodeURIComponent(organizationId)}/providers`;
}

/** The named text fields of a provider form, trimmed (the server refuses surrounding spaces). */
function trimmed(values: Record<string, string>, name: string): string {
  return (values[name] ?? '').trim();
}

/**
 * The create body of an OIDC provider from its form (`jit` is the checkbox, `on` when ticked); an
 * empty client secret means a public client.
 */
export function oidcRegistration(values: Record<string, string>): Record<string, unknown> {
  const clientSecret = trimmed(values, 'clientSecret');
  return {
    providerId: trimmed(values, 'providerId'),
    protocol: 'oidc',
    displayName: trimmed(values, 'displayName'),
    issuer: trimmed(values, 'issuer'),
    clientId: trimmed(values, 'clientId'),
    ...(clientSecret === '' ? {} : { clientSecret }),
    jit: values['jit'] === 'on',
  };
}

/** The `-----BEGIN CERTIFICATE-----` blocks pasted into a field, each with `\n` line ends. */
export function certificateBlocks(text: string): string[] {
  const blocks = text.replace(/\r\n?/g, '\n').match(/-----BEGIN CERTIFICATE-----\n[\s\S]*?-----END CERTIFICATE-----/g);
  return (blocks ?? []).map((block) => `${block}\n`);
}

/**
 * The create body of a SAML provider from its form: the metadata XML when pasted, otherwise the
 * entity ID, SSO URL and certificates (all three needed; a plain `Error` says so before any call).
 */
export function samlRegistration(values: Record<string, string>): Record<string, unknown> {
  const base = {
    providerId: trimmed(values, 'providerId'),
    protocol: 'saml',
    displayName: trimmed(values, 'displayName'),
    signaturePolicy: values['signaturePolicy'] ?? 'assertion',
    jit: values['jit'] === 'on',
  };
  const metadata = trimmed(values, 'idpMetadataXml');
  if (metadata !== '') return { ...base, idpMetadataXml: metadata };
  const idpEntityId = trimmed(values, 'idpEntityId');
  const ssoUrl = trimmed(values, 'ssoUrl');
  const idpCertificatesPem = certificateBlocks(values['certificates'] ?? '');
  if (idpEntityId === '' || ssoUrl === '' || idpCertificatesPem.length === 0) {
    throw new Error(
      'Paste the identity provider’s metadata XML, or fill in its entity ID, single sign-on URL and at least one signing certificate (PEM).',
    );
  }
  return { ...base, idpEntityId, ssoUrl, idpCertificatesPem };
}

/** What was being done when a provider call failed, for {@link explainProviderError}. */
export type ProviderAction = 'add_oidc' | 'add_saml' | 'enable' | 'disable' | 'delete' | 'list';

const BAD_REQUEST: Record<ProviderAction, string> = {
  add_oidc:
    'Check the provider ID (lower-case letters, digits, - and _), the issuer (https, or http://localhost in development) and the client ID: the issuer’s discovery document must be reachable and valid (its issuer exactly as typed, S256 PKCE, ES256 or RS256 signatures, endpoints on the issuer’s origin).',
  add_saml:
    'Check the provider ID, the metadata XML (one identity provider with an HTTP-Redirect single sign-on URL and a signing certificate), or the entity ID, the single sign-on URL (https without a query, or http://localhost in development) and the certificates.',
  enable: 'A SAML provider needs at least one signing certificate before it can be enabled.',
  disable: 'The request was refused.',
  delete: 'The request was refused.',
  list: 'The request was refused.',
};

const CONFLICT: Record<ProviderAction, string> = {
  add_oidc:
    'This organization already has a provider with that ID (or had one with another issuer), or that ID is declared in the server’s configuration. Choose another provider ID.',
  add_saml:
    'This organization already has a provider with that ID (or had one with another entity ID), or that ID is declared in the server’s configuration. Choose another provider ID.',
  enable: 'The provider changed meanwhile; reload the page and try again.',
  disable: 'The provider changed meanwhile; reload the page and try again.',
  delete:
    'The provider changed meanwhile, or it is declared in the server’s configuration (which only disable and enable can change here).',
  list: 'The providers changed meanwhile; reload the page.',
};

/**
 * A provider call's failure with the envelope's fixed message, its request ID, and what to do for
 * this action: 400 (what to check), 403 (the passkey check), 404, 409 (which conflict), 503 (the
 * identity provider or the service is unreachable). Other errors pass unchanged.
 *
 * @example
 * throw explainProviderError(error, 'add_oidc');
 */
export function explainProviderError(error: unknown, action: ProviderAction): unknown {
  if (!(error instanceof IdentityApiError)) return error;
  let hint: string | undefined;
  if (error.status === 400) hint = BAD_REQUEST[action];
  else if (error.status === 403 && error.code === 'step_up_required')
    hint =
      'Single sign-on changes need a passkey check from the last five minutes; confirm with your passkey and try again.';
  else if (error.status === 404)
    hint = 'This provider no longer exists, or you can no longer manage this organization’s single sign-on.';
  else if (error.status === 409) hint = CONFLICT[action];
  else if (error.status === 503)
    hint =
      action === 'add_oidc'
        ? 'The identity provider could not be reached (or answered too slowly); check the issuer URL and try again in a moment.'
        : 'The service is temporarily unavailable; try again in a moment.';
  if (hint === undefined) return error;
  return new IdentityApiError(error.status, error.code, `${error.message}. ${hint}`, error.requestId);
}
