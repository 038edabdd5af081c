import type { OrganizationRole } from '../store/identity-records.js';

/** What an invitation delivery carries: everything an email to the invitee needs, the link included. */
export interface InvitationDelivery {
  readonly invitationId: string;
  readonly organizationId: string;
  /** The invitee's address, as the inviter typed it. */
  readonly email: string;
  readonly organizationName: string;
  /** The inviter's display name; `null` for a system-issued invitation (e.g. `npm run invite`). */
  readonly inviterDisplayName: string | null;
  readonly role: OrganizationRole;
  /** The enrolment page with the token in the fragment (`#token=…`), which browsers never send to a server. */
  readonly enrollUrl: string;
  readonly expiresAt: Date;
}

/**
 * Delivers a new invitation to its invitee (email, chat, a ticketing system). With it configured,
 * route 31 answers without the token unless `invitations.returnTokenWithSink` says otherwise.
 *
 * @example
 * const notificationSink: InvitationNotificationSink = {
 *   deliverInvitation: ({ email, organizationName, enrollUrl }) => mailer.sendInvitation(email, organizationName, enrollUrl),
 * };
 */
export interface InvitationNotificationSink {
  /** Resolves once the invitation is durably handed over; rejects (or throws) when delivery failed. */
  deliverInvitation(input: InvitationDelivery): Promise<void>;
}

/** The resolved invitation delivery of a kernel: present only with a `deliverInvitation` sink. */
export interface InvitationDeliverySettings {
  readonly sink: InvitationNotificationSink;
  /** `publicBaseUrl` + `enrollPath`, to which `#token=…` is appended. */
  readonly enrollPage: string;
  readonly returnToken: boolean;
  readonly timeoutMs: number;
}
