/**
 * The platform's authority over administrative recovery (identity-model §5.6). Organization roles
 * never authorize recovery; only this authorizer does.
 *
 * @example
 * const platformAuthorizer: PlatformRecoveryAuthorizer = {
 *   authorizeRecovery: ({ actorUserId }) => supportStaff.has(actorUserId),
 * };
 */
export interface PlatformRecoveryAuthorizer {
  /** `true` when `actorUserId` may issue or cancel a recovery ticket for `targetUserId`. */
  authorizeRecovery(input: { actorUserId: string; targetUserId: string }): boolean | Promise<boolean>;
}

/**
 * Delivers an administrative recovery ticket to its user out of band (email, SMS, support desk).
 * The token is handed over only here, never over HTTP.
 *
 * @example
 * const notificationSink: RecoveryNotificationSink = {
 *   deliverRecoveryTicket: async ({ userId, token }) => mailer.sendRecoveryLink(userId, token),
 * };
 */
export interface RecoveryNotificationSink {
  /** Resolves once the ticket is durably delivered; rejects (or throws) when delivery failed. */
  deliverRecoveryTicket(input: { ticketId: string; userId: string; token: string; expiresAt: Date }): Promise<void>;
}

/** Both integrations; administrative recovery is disabled unless both are configured. */
export interface AdministrativeRecovery {
  readonly authorizer: PlatformRecoveryAuthorizer;
  readonly sink: RecoveryNotificationSink;
}
