import { describe, it, expect } from '@jest/globals';
import type { IdentityContext, IdentityPrincipal } from '../context/identity-context.js';
import type { MembershipRecord, OrganizationRecord, SessionRecord } from '../store/identity-records.js';
import {
  decideCapability,
  decideIdentity,
  decideOrganization,
  decideOrganizationRole,
  decideRecentPasskey,
  decideRecoveryEnrollmentSession,
} from './identity-decisions.js';

const NOW = new Date('2026-07-14T08:15:30Z');
const ORG = '01890000-0000-7000-8000-000000000001';
const organization = { id: ORG, name: 'Acme', slug: 'acme', state: 'active' } as OrganizationRecord;
const membership = { id: 'm', organizationId: ORG, userId: 'u', role: 'admin', state: 'active' } as MembershipRecord;

function userContext(
  overrides: Partial<IdentityPrincipal> = {},
  extra: Partial<IdentityContext> = {},
  authenticatedSecondsAgo = 60,
): IdentityContext {
  const principal: IdentityPrincipal = {
    kind: 'user',
    id: 'u',
    assurance: 'passkey',
    authenticationMethod: 'passkey',
    directCapabilities: [],
    roles: [],
    ...overrides,
  };
  return {
    principal,
    session: { authenticatedAt: new Date(NOW.getTime() - authenticatedSecondsAgo * 1000) } as SessionRecord,
    organization,
    membership,
    role: 'admin',
    effectiveCapabilities: new Set(['audit.read', 'package.publish']),
    requestId: 'req_x',
    requestTime: NOW,
    ...extra,
  };
}

const restricted = userContext(
  { assurance: 'recovery', authenticationMethod: 'invitation' },
  { effectiveCapabilities: new Set() },
);

describe('identity guard decisions (identity-model §7.1)', () => {
  it('decideIdentity refuses anonymous and restricted callers, answering a recorded cookie failure', () => {
    expect(decideIdentity(undefined)).toEqual({ allow: false, code: 'authentication_required' });
    expect(decideIdentity(undefined, 'session_expired')).toEqual({ allow: false, code: 'session_expired' });
    expect(decideIdentity(restricted)).toEqual({ allow: false, code: 'authentication_required' });
    expect(decideIdentity(userContext())).toEqual({ allow: true });
  });

  it('decideRecoveryEnrollmentSession admits only restricted sessions', () => {
    expect(decideRecoveryEnrollmentSession(restricted)).toEqual({ allow: true });
    expect(decideRecoveryEnrollmentSession(userContext())).toEqual({ allow: false, code: 'authentication_required' });
    expect(decideRecoveryEnrollmentSession(undefined)).toEqual({ allow: false, code: 'authentication_required' });
  });

  it('decideOrganization hides every tenancy failure behind not_found', () => {
    const notFound = { allow: false, code: 'not_found' };
    expect(decideOrganization(userContext())).toEqual({ allow: true });
    expect(decideOrganization(userContext(), ORG)).toEqual({ allow: true });
    expect(decideOrganization(userContext(), '01890000-0000-7000-8000-000000000002')).toEqual(notFound);
    expect(decideOrganization(userContext({}, { organization: undefined }))).toEqual(notFound);
    expect(decideOrganization(userContext({}, { organization: { ...organization, state: 'suspended' } }))).toEqual(
      notFound,
    );
    expect(decideOrganization(userContext({}, { membership: { ...membership, state: 'removed' } }))).toEqual(notFound);
    expect(decideOrganization(userContext({}, { membership: undefined }))).toEqual(notFound);
    expect(decideOrganization(restricted)).toEqual(notFound);
    expect(decideOrganization(undefined)).toEqual(notFound);
    const device = userContext(
      { kind: 'device', assurance: 'device_token', authenticationMethod: 'device_token' },
      { membership: undefined },
    );
    expect(decideOrganization(device)).toEqual({ allow: true });
  });

  it('decideOrganizationRole needs the exact role set; restricted sessions never pass', () => {
    expect(decideOrganizationRole(userContext(), ['owner', 'admin'])).toEqual({ allow: true });
    expect(decideOrganizationRole(userContext(), ['owner'])).toEqual({ allow: false, code: 'not_found' });
    expect(decideOrganizationRole(restricted, ['owner', 'admin', 'publisher', 'viewer'])).toEqual({
      allow: false,
      code: 'not_found',
    });
  });

  it('decideCapability checks effective capabilities; restricted sessions have none', () => {
    expect(decideCapability(userContext(), 'audit.read')).toEqual({ allow: true });
    expect(decideCapability(userContext(), 'organization.delete')).toEqual({ allow: false, code: 'not_found' });
    expect(decideCapability(restricted, 'audit.read')).toEqual({ allow: false, code: 'not_found' });
    expect(decideCapability(undefined, 'audit.read')).toEqual({ allow: false, code: 'not_found' });
  });

  it('decideRecentPasskey needs a passkey or step-up session within the window', () => {
    expect(decideRecentPasskey(undefined)).toEqual({ allow: false, code: 'authentication_required' });
    expect(decideRecentPasskey(userContext({}, {}, 300))).toEqual({ allow: true });
    expect(decideRecentPasskey(userContext({}, {}, 301))).toEqual({ allow: false, code: 'step_up_required' });
    expect(decideRecentPasskey(userContext({ assurance: 'step_up' }, {}, 10))).toEqual({ allow: true });
    expect(decideRecentPasskey(userContext({ assurance: 'session', authenticationMethod: 'oidc' }, {}, 10))).toEqual({
      allow: false,
      code: 'step_up_required',
    });
    expect(decideRecentPasskey(restricted)).toEqual({ allow: false, code: 'step_up_required' });
    expect(decideRecentPasskey(userContext({}, {}, 600), 900)).toEqual({ allow: true });
    expect(decideRecentPasskey(userContext({}, { requestTime: new Date(Number.NaN) }))).toEqual({
      allow: false,
      code: 'internal_error',
    });
  });
});
