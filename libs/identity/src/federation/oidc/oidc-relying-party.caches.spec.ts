import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { startFakeOidcIdp, type FakeOidcIdp } from '../../../../../test/support/federation/oidc-fake-idp.js';
import {
  expectFederationFailure,
  fakeIdpSettings,
  fakeSignIn,
} from '../../../../../test/support/federation/oidc-fake-flow.js';
import { FrozenClock } from '../../runtime/frozen.clock.js';
import { createNodeHttpClient } from '../../runtime/node-http.client.js';
import { OidcRelyingParty } from './oidc-relying-party.js';
import { DEFAULT_OIDC_POLICY } from './oidc.types.js';

/** Request counts at the fake IdP, not time: the caches follow the runtime (frozen) clock. */
describe('OidcRelyingParty: discovery and JWKS caches (fake IdP)', () => {
  let clock: FrozenClock;
  let idp: FakeOidcIdp;
  let rp: OidcRelyingParty;

  beforeEach(async () => {
    clock = new FrozenClock('2026-03-01T12:00:00Z');
    idp = await startFakeOidcIdp({ now: () => clock.now() });
    rp = new OidcRelyingParty({ httpClient: createNodeHttpClient(), clock, policy: DEFAULT_OIDC_POLICY });
  });

  afterEach(async () => {
    await idp.close();
  });

  it('reuses a discovery document for one hour, then fetches it again', async () => {
    await rp.discover(fakeIdpSettings(idp));
    await fakeSignIn(rp, idp);
    await rp.discover(fakeIdpSettings(idp));
    expect(idp.counts.discovery).toBe(1);
    clock.advance({ minutes: 59, seconds: 59 });
    await rp.discover(fakeIdpSettings(idp));
    expect(idp.counts.discovery).toBe(1);
    clock.advance({ seconds: 1 });
    await rp.discover(fakeIdpSettings(idp));
    expect(idp.counts.discovery).toBe(2);
  });

  it('fetches discovery once for concurrent first uses', async () => {
    await Promise.all([rp.discover(fakeIdpSettings(idp)), rp.discover(fakeIdpSettings(idp)), fakeSignIn(rp, idp)]);
    expect(idp.counts.discovery).toBe(1);
  });

  it('keeps a separate discovery entry per client', async () => {
    await rp.discover(fakeIdpSettings(idp));
    await rp.discover(fakeIdpSettings(idp, { clientId: 'another-client' }));
    expect(idp.counts.discovery).toBe(2);
  });

  it('reuses the JWKS for 15 minutes, then fetches it again', async () => {
    await fakeSignIn(rp, idp);
    await fakeSignIn(rp, idp);
    expect(idp.counts.jwks).toBe(1);
    clock.advance({ minutes: 14, seconds: 59 });
    await fakeSignIn(rp, idp);
    expect(idp.counts.jwks).toBe(1);
    clock.advance({ seconds: 1 });
    await fakeSignIn(rp, idp);
    expect(idp.counts.jwks).toBe(2);
  });

  it('refuses an unknown kid after exactly one forced refresh', async () => {
    await fakeSignIn(rp, idp);
    expect(idp.counts.jwks).toBe(1);
    idp.nextIdToken({ key: 'unpublished' });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'unknown_kid');
    expect(idp.counts.jwks).toBe(2);
    idp.nextIdToken({ key: 'unpublished', alg: 'RS256' });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'unknown_kid');
    expect(idp.counts.jwks).toBe(3);
  });

  it('accepts a rotated key found by the one forced refresh, then serves it from the cache', async () => {
    await fakeSignIn(rp, idp);
    await idp.rotateKeys();
    await expect(fakeSignIn(rp, idp)).resolves.toMatchObject({ subject: 'fake-subject' });
    expect(idp.counts.jwks).toBe(2);
    idp.nextIdToken({ alg: 'RS256' });
    await fakeSignIn(rp, idp);
    expect(idp.counts.jwks).toBe(2);
  });

  it('refuses a token signed by an unpublished key that reuses a published kid', async () => {
    await fakeSignIn(rp, idp);
    const published = idp.metadata['jwks_uri'] as string;
    const jwks = (await (await fetch(published)).json()) as { keys: { kid: string; kty: string }[] };
    const ecKid = jwks.keys.find((key) => key.kty === 'EC')!.kid;
    idp.nextIdToken({ key: 'unpublished', kid: ecKid });
    await expectFederationFailure(fakeSignIn(rp, idp), 'token_invalid', 'signature_invalid');
  });
});
