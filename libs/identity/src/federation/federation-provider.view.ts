import { createHash, X509Certificate } from 'node:crypto';
import { formatTimestamp } from '../tokens/timestamp.format.js';
import { providerUrls } from './federation-provider.js';
import type { ListedFederationProvider } from './federation-registry.js';

/** What the console shows of one IdP signing certificate (never the key material's use). */
export interface CertificateView {
  /** Lower-case hex SHA-256 of the DER certificate. */
  readonly sha256Fingerprint: string;
  readonly subject: string;
  readonly notBefore: string;
  readonly notAfter: string;
}

function certificateView(pem: string): CertificateView {
  const certificate = new X509Certificate(pem);
  return {
    sha256Fingerprint: createHash('sha256').update(certificate.raw).digest('hex'),
    subject: certificate.subject.replace(/\n/g, ', '),
    notBefore: formatTimestamp(new Date(certificate.validFrom)),
    notAfter: formatTimestamp(new Date(certificate.validTo)),
  };
}

/**
 * The provider view of the management routes (issue 14): what the organization pastes into its
 * IdP (`redirectUri`, or `acsUrl` + `spEntityId` + `metadataUrl`) and how the provider stands.
 * Never a client secret: only `hasClientSecret`.
 *
 * @example
 * respondIdentityJson(exchange, 200, providerView(publicBaseUrl, listed));
 */
export function providerView(publicBaseUrl: string, listed: ListedFederationProvider): Record<string, unknown> {
  const { provider, state, linkedIdentities } = listed;
  const urls = providerUrls(publicBaseUrl, provider.organizationId, provider.providerId);
  const common = {
    providerId: provider.providerId,
    organizationId: provider.organizationId,
    protocol: provider.protocol,
    displayName: provider.displayName,
    state,
    jit: provider.jit,
    source: provider.source,
    linkedIdentities,
    startUrl: urls.startUrl,
    signInPageUrl: urls.signInPageUrl,
    ...(provider.version === null ? {} : { version: provider.version }),
    ...(provider.createdAt === null ? {} : { createdAt: formatTimestamp(provider.createdAt) }),
    ...(provider.updatedAt === null ? {} : { updatedAt: formatTimestamp(provider.updatedAt) }),
  };
  if (provider.protocol === 'oidc') {
    return {
      ...common,
      issuer: provider.issuer,
      clientId: provider.clientId,
      hasClientSecret: provider.clientSecret.kind !== 'none',
      redirectUri: urls.callbackUrl,
    };
  }
  return {
    ...common,
    idpEntityId: provider.idpEntityId,
    ssoUrl: provider.ssoUrl,
    signaturePolicy: provider.signaturePolicy,
    idpCertificates: provider.idpCertificatesPem.map(certificateView),
    acsUrl: urls.callbackUrl,
    spEntityId: urls.metadataUrl,
    metadataUrl: urls.metadataUrl,
  };
}

/**
 * What the anonymous organization sign-in page lists: enabled providers only, name and start URL.
 *
 * @example
 * providers.filter((p) => p.state === 'enabled').map((p) => signInOptionView(publicBaseUrl, p));
 */
export function signInOptionView(publicBaseUrl: string, listed: ListedFederationProvider): Record<string, unknown> {
  const { provider } = listed;
  return {
    providerId: provider.providerId,
    protocol: provider.protocol,
    displayName: provider.displayName,
    startUrl: providerUrls(publicBaseUrl, provider.organizationId, provider.providerId).startUrl,
  };
}
