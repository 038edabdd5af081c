import type { InvitationDelivery, InvitationDeliverySettings } from './invitation-delivery.port.js';

/**
 * Hands one invitation to the sink within `settings.timeoutMs`: `true` once it resolved, `false`
 * when it threw, rejected or did not settle in time (its later outcome is ignored).
 *
 * @example
 * if (!(await deliverInvitation(settings, delivery))) await revokeUndelivered();
 */
export async function deliverInvitation(
  settings: InvitationDeliverySettings,
  delivery: InvitationDelivery,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), settings.timeoutMs);
    timer.unref();
  });
  const delivered = Promise.resolve()
    .then(() => settings.sink.deliverInvitation(delivery))
    .then(
      () => true,
      () => false,
    );
  try {
    return await Promise.race([delivered, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The link a delivery carries: the enrolment page with the token in the fragment. */
export function enrollUrl(settings: InvitationDeliverySettings, token: string): string {
  return `${settings.enrollPage}#token=${encodeURIComponent(token)}`;
}
