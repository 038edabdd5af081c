import { describe, expect, it } from '@jest/globals';
import { IdentityConfigError } from '../errors/identity-boot.errors.js';
import type { InvitationDelivery } from './invitation-delivery.port.js';
import { deliverInvitation, enrollUrl } from './invitation-delivery.js';
import { resolveInvitationDelivery } from './invitation-delivery.settings.js';

const BASE = 'https://id.example.com';
const delivery = { email: 'grace@example.com' } as InvitationDelivery;

function refusal(run: () => unknown): IdentityConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(IdentityConfigError);
    return error as IdentityConfigError;
  }
  throw new Error('expected an IdentityConfigError');
}

describe('invitation delivery settings', () => {
  const sink = { deliverInvitation: async () => undefined };

  it('is off without a deliverInvitation sink, and defaults to /identity/enroll, no token, 10 s', () => {
    expect(resolveInvitationDelivery(undefined, undefined, BASE)).toBeUndefined();
    expect(resolveInvitationDelivery({ deliverRecoveryTicket: async () => undefined }, {}, BASE)).toBeUndefined();
    const settings = resolveInvitationDelivery(sink, undefined, BASE)!;
    expect(settings).toMatchObject({ enrollPage: `${BASE}/identity/enroll`, returnToken: false, timeoutMs: 10_000 });
    expect(enrollUrl(settings, 'a+b/c')).toBe(`${BASE}/identity/enroll#token=a%2Bb%2Fc`);
    expect(resolveInvitationDelivery(sink, { enrollPath: '/join', returnTokenWithSink: true }, BASE)).toMatchObject({
      enrollPage: `${BASE}/join`,
      returnToken: true,
    });
  });

  it.each([
    [{ enrollPath: 'https://elsewhere.example/enroll' }, 'invitations.enrollPath'],
    [{ enrollPath: '//elsewhere.example/enroll' }, 'invitations.enrollPath'],
    [{ enrollPath: '/enroll?x=1' }, 'invitations.enrollPath'],
    [{ enrollPath: '/enroll#x' }, 'invitations.enrollPath'],
    [{ deliveryTimeoutMs: 5 }, 'invitations.deliveryTimeoutMs'],
    [{ deliveryTimeoutMs: 60_001 }, 'invitations.deliveryTimeoutMs'],
    [{ deliveryTimeoutMs: 1.5 }, 'invitations.deliveryTimeoutMs'],
    [{ returnTokenWithSink: 'yes' as unknown as boolean }, 'invitations.returnTokenWithSink'],
  ])('refuses %j, naming the option (checked with or without a sink)', (options, path) => {
    for (const withSink of [sink, undefined]) {
      const error = refusal(() => resolveInvitationDelivery(withSink, options, BASE));
      expect(error.rule).toBe('invitations');
      expect(error.message).toContain(path);
    }
  });

  it('counts a sink that throws, rejects or never settles within the bound as a failed delivery', async () => {
    const settings = (deliver: () => Promise<void>) =>
      resolveInvitationDelivery({ deliverInvitation: deliver }, { deliveryTimeoutMs: 100 }, BASE)!;
    expect(
      await deliverInvitation(
        settings(async () => undefined),
        delivery,
      ),
    ).toBe(true);
    expect(
      await deliverInvitation(
        settings(() => {
          throw new Error('down');
        }),
        delivery,
      ),
    ).toBe(false);
    expect(
      await deliverInvitation(
        settings(() => Promise.reject(new Error('full'))),
        delivery,
      ),
    ).toBe(false);
    const started = Date.now();
    expect(
      await deliverInvitation(
        settings(() => new Promise(() => undefined)),
        delivery,
      ),
    ).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });
});
