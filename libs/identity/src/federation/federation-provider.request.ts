import { X509Certificate } from 'node:crypto';
import { codePointLength } from '../http/request-fields.js';
import type { SamlSignaturePolicy } from '../store/identity-federation.records.js';
import { PROVIDER_ID_PATTERN } from './federation-provider.js';

/** `POST …/federation/providers` with `protocol: 'oidc'`. */
export interface OidcProviderBody {
  readonly protocol: 'oidc';
  readonly providerId: string;
  readonly displayName: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly jit: boolean;
}

/** `POST …/federation/providers` with `protocol: 'saml'`: metadata XML, or the three IdP fields. */
export interface SamlProviderBody {
  readonly protocol: 'saml';
  readonly providerId: string;
  readonly displayName: string;
  readonly idp:
    | { readonly kind: 'metadata'; readonly xml: string }
    | {
        readonly kind: 'fields';
        readonly idpEntityId: string;
        readonly ssoUrl: string;
        readonly idpCertificatesPem: string[];
      };
  readonly signaturePolicy: SamlSignaturePolicy;
  readonly jit: boolean;
}

/** A provider registration body. */
export type ProviderBody = OidcProviderBody | SamlProviderBody;

/** `PATCH …/federation/providers/{providerId}`: only the mutable fields; at least one. */
export interface ProviderChangeBody {
  readonly displayName?: string;
  readonly jit?: boolean;
  readonly clientId?: string;
  /** `null` removes the secret. */
  readonly clientSecret?: string | null;
  readonly idpMetadataXml?: string;
  readonly ssoUrl?: string;
  readonly idpCertificatesPem?: string[];
  readonly signaturePolicy?: SamlSignaturePolicy;
}

const SIGNATURE_POLICIES: readonly SamlSignaturePolicy[] = ['assertion', 'response', 'both', 'assertion_or_response'];
const MAX_METADATA_CHARS = 512 * 1024;
const MAX_CERTIFICATES = 4;
const PEM = /^-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----\s*$/;

const isText = (value: unknown, min: number, max: number): value is string =>
  typeof value === 'string' &&
  value.trim() === value &&
  codePointLength(value) >= min &&
  codePointLength(value) <= max &&
  // eslint-disable-next-line no-control-regex
  !/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(value);
const isVisibleAscii = (value: unknown, max: number): value is string =>
  typeof value === 'string' && /^[\x21-\x7e]+$/.test(value) && value.length <= max;
const isUrlText = (value: unknown): value is string => isVisibleAscii(value, 2048);

/** A PEM certificate that parses as X.509 (any key type; the signature check decides later). */
export function isCertificatePem(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 16_384 || !PEM.test(value)) return false;
  try {
    new X509Certificate(value);
    return true;
  } catch {
    return false;
  }
}

function certificatesOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_CERTIFICATES) return undefined;
  if (!value.every(isCertificatePem)) return undefined;
  return new Set(value).size === value.length ? [...(value as string[])] : undefined;
}

function objectWith(value: unknown, allowed: readonly string[]): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  return Object.keys(record).every((key) => allowed.includes(key)) ? record : undefined;
}

const optionalBoolean = (record: Record<string, unknown>, key: string): boolean | undefined | null => {
  if (!Object.hasOwn(record, key)) return undefined;
  return typeof record[key] === 'boolean' ? (record[key] as boolean) : null;
};

/**
 * Stage 9 of the create route: an OIDC body `{providerId, protocol: 'oidc', displayName, issuer,
 * clientId, clientSecret?, jit?}` or a SAML body `{providerId, protocol: 'saml', displayName,
 * idpMetadataXml | (idpEntityId, ssoUrl, idpCertificatesPem), signaturePolicy?, jit?}`; unknown
 * keys, wrong types and out-of-range values are `undefined` (400). URL policy and discovery are
 * the service's (they depend on the environment and the network).
 *
 * @example
 * const body = decodeProviderBody({ providerId: 'okta', protocol: 'oidc', displayName: 'Okta', issuer, clientId });
 */
export function decodeProviderBody(value: unknown): ProviderBody | undefined {
  const record = objectWith(value, [
    'providerId',
    'protocol',
    'displayName',
    'issuer',
    'clientId',
    'clientSecret',
    'jit',
    'idpMetadataXml',
    'idpEntityId',
    'ssoUrl',
    'idpCertificatesPem',
    'signaturePolicy',
  ]);
  if (record === undefined) return undefined;
  const { providerId, displayName, protocol } = record;
  const jit = optionalBoolean(record, 'jit');
  if (typeof providerId !== 'string' || !PROVIDER_ID_PATTERN.test(providerId)) return undefined;
  if (!isText(displayName, 1, 200) || jit === null) return undefined;
  const base = { providerId, displayName, jit: jit ?? false };
  if (protocol === 'oidc') {
    const { issuer, clientId, clientSecret } = record;
    const samlKeys = ['idpMetadataXml', 'idpEntityId', 'ssoUrl', 'idpCertificatesPem', 'signaturePolicy'];
    if (samlKeys.some((key) => Object.hasOwn(record, key))) return undefined;
    if (!isUrlText(issuer) || !isVisibleAscii(clientId, 200)) return undefined;
    if (clientSecret !== undefined && !isVisibleAscii(clientSecret, 512)) return undefined;
    return { ...base, protocol, issuer, clientId, ...(clientSecret === undefined ? {} : { clientSecret }) };
  }
  if (protocol !== 'saml') return undefined;
  if (['issuer', 'clientId', 'clientSecret'].some((key) => Object.hasOwn(record, key))) return undefined;
  const signaturePolicy = record['signaturePolicy'] ?? 'assertion';
  if (!SIGNATURE_POLICIES.includes(signaturePolicy as SamlSignaturePolicy)) return undefined;
  const policy = signaturePolicy as SamlSignaturePolicy;
  const { idpMetadataXml, idpEntityId, ssoUrl, idpCertificatesPem } = record;
  if (idpMetadataXml !== undefined) {
    if ([idpEntityId, ssoUrl, idpCertificatesPem].some((field) => field !== undefined)) return undefined;
    if (typeof idpMetadataXml !== 'string' || idpMetadataXml.length < 1 || idpMetadataXml.length > MAX_METADATA_CHARS) {
      return undefined;
    }
    return { ...base, protocol, idp: { kind: 'metadata', xml: idpMetadataXml }, signaturePolicy: policy };
  }
  const certificates = certificatesOf(idpCertificatesPem);
  if (!isText(idpEntityId, 1, 1024) || !isUrlText(ssoUrl) || certificates === undefined) return undefined;
  return {
    ...base,
    protocol,
    idp: { kind: 'fields', idpEntityId, ssoUrl, idpCertificatesPem: certificates },
    signaturePolicy: policy,
  };
}

/**
 * Stage 9 of the PATCH route: at least one of `displayName`, `jit`, `clientId`, `clientSecret`
 * (string or `null`), `idpMetadataXml`, `ssoUrl`, `idpCertificatesPem`, `signaturePolicy`; the
 * immutable fields (`providerId`, `protocol`, `issuer`, `idpEntityId`) and unknown keys are 400.
 * Which fields fit the provider's protocol is the service's check.
 *
 * @example
 * const change = decodeProviderChange({ jit: true });
 */
export function decodeProviderChange(value: unknown): ProviderChangeBody | undefined {
  const allowed = [
    'displayName',
    'jit',
    'clientId',
    'clientSecret',
    'idpMetadataXml',
    'ssoUrl',
    'idpCertificatesPem',
    'signaturePolicy',
  ] as const;
  const record = objectWith(value, allowed);
  if (record === undefined || Object.keys(record).length === 0) return undefined;
  const change: { -readonly [K in keyof ProviderChangeBody]: ProviderChangeBody[K] } = {};
  if (Object.hasOwn(record, 'displayName')) {
    if (!isText(record['displayName'], 1, 200)) return undefined;
    change.displayName = record['displayName'];
  }
  const jit = optionalBoolean(record, 'jit');
  if (jit === null) return undefined;
  if (jit !== undefined) change.jit = jit;
  if (Object.hasOwn(record, 'clientId')) {
    if (!isVisibleAscii(record['clientId'], 200)) return undefined;
    change.clientId = record['clientId'];
  }
  if (Object.hasOwn(record, 'clientSecret')) {
    const secret = record['clientSecret'];
    if (secret !== null && !isVisibleAscii(secret, 512)) return undefined;
    change.clientSecret = secret;
  }
  if (Object.hasOwn(record, 'idpMetadataXml')) {
    const xml = record['idpMetadataXml'];
    if (typeof xml !== 'string' || xml.length < 1 || xml.length > MAX_METADATA_CHARS) return undefined;
    if (Object.hasOwn(record, 'ssoUrl') || Object.hasOwn(record, 'idpCertificatesPem')) return undefined;
    change.idpMetadataXml = xml;
  }
  if (Object.hasOwn(record, 'ssoUrl')) {
    if (!isUrlText(record['ssoUrl'])) return undefined;
    change.ssoUrl = record['ssoUrl'];
  }
  if (Object.hasOwn(record, 'idpCertificatesPem')) {
    const certificates = certificatesOf(record['idpCertificatesPem']);
    if (certificates === undefined) return undefined;
    change.idpCertificatesPem = certificates;
  }
  if (Object.hasOwn(record, 'signaturePolicy')) {
    const policy = record['signaturePolicy'];
    if (!SIGNATURE_POLICIES.includes(policy as SamlSignaturePolicy)) return undefined;
    change.signaturePolicy = policy as SamlSignaturePolicy;
  }
  return change;
}
