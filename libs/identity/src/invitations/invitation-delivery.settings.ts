import { IdentityConfigError } from '../errors/identity-boot.errors.js';
import type { IdentityInvitationOptions, IdentityNotificationSink } from '../identity.module-definition.js';
import type { InvitationDeliverySettings } from './invitation-delivery.port.js';

/** A path of unreserved and sub-delimiter characters, one leading slash: no query, fragment or authority. */
const ENROLL_PATH = /^\/(?!\/)[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/;

/**
 * The invitation delivery of a module: `undefined` without a `deliverInvitation` sink. The options
 * are checked either way (`IdentityConfigError`, rule `invitations`), so a typo fails the start.
 *
 * @example
 * const delivery = resolveInvitationDelivery(options.notificationSink, options.invitations, config.publicBaseUrl);
 */
export function resolveInvitationDelivery(
  sink: IdentityNotificationSink | undefined,
  options: IdentityInvitationOptions | undefined,
  publicBaseUrl: string,
): InvitationDeliverySettings | undefined {
  const enrollPath = options?.enrollPath ?? '/identity/enroll';
  if (typeof enrollPath !== 'string' || !ENROLL_PATH.test(enrollPath))
    throw new IdentityConfigError('invitations', 'invitations.enrollPath must be a path such as /identity/enroll');
  const timeoutMs = options?.deliveryTimeoutMs ?? 10_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 60_000)
    throw new IdentityConfigError(
      'invitations',
      'invitations.deliveryTimeoutMs must be an integer between 100 and 60000',
    );
  const returnToken = options?.returnTokenWithSink ?? false;
  if (typeof returnToken !== 'boolean')
    throw new IdentityConfigError('invitations', 'invitations.returnTokenWithSink must be true or false');
  const deliver = sink?.deliverInvitation;
  if (deliver === undefined) return undefined;
  if (typeof deliver !== 'function')
    throw new IdentityConfigError('invitations', 'notificationSink.deliverInvitation must be a function');
  return {
    sink: { deliverInvitation: (input) => deliver.call(sink, input) },
    enrollPage: new URL(enrollPath, publicBaseUrl).href,
    returnToken,
    timeoutMs,
  };
}
