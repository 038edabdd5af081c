/**
 * Domain strings of every keyed digest and pseudonym of `identity-model.md` §2 and the rate-limit
 * key of `identity-http.md` §10 (the first length-prefixed field of each digest input).
 *
 * @example
 * keyedDigest(pepper, DIGEST_DOMAINS.session, secret);
 */
export const DIGEST_DOMAINS = Object.freeze({
  session: 'tessera-session-v1',
  csrf: 'tessera-csrf-v1',
  recoveryCode: 'tessera-recovery-code-v2',
  legacyRecoveryCode: 'tessera-recovery-code-v1',
  invitation: 'tessera-invitation-v1',
  recoveryTicket: 'tessera-recovery-ticket-v1',
  recoveryTicketUser: 'tessera-recovery-ticket-user-v1',
  deviceCode: 'tessera-device-code-v1',
  deviceUserCode: 'tessera-device-user-code-v1',
  deviceAccessToken: 'tessera-device-access-token-v1',
  deviceRefreshToken: 'tessera-device-refresh-token-v1',
  serviceCredential: 'tessera-service-credential-v1',
  scimToken: 'tessera-scim-token-v1',
  auditUserAgent: 'tessera-audit-user-agent-v1',
  auditClientAddress: 'tessera-audit-client-address-v1',
  rateLimit: 'tessera-rate-limit-v1',
} as const);

/**
 * One of the digest domain strings.
 *
 * @example
 * const domain: DigestDomain = 'tessera-session-v1';
 */
export type DigestDomain = (typeof DIGEST_DOMAINS)[keyof typeof DIGEST_DOMAINS];
