import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import request from 'supertest';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import { bootIdentityApp, type IdentityTestApp } from '../../support/identity-app.js';
import {
  bootstrapOwner,
  registerPasskey,
  registrationStart,
  sessionOf,
  signIn,
  stepUp,
} from '../../support/passkey-client.js';

describe('passkey journey: bootstrap → registration → sign-in → step-up', () => {
  let identity: IdentityTestApp;
  beforeAll(async () => {
    identity = await bootIdentityApp();
  });
  afterAll(async () => identity?.close());

  it('enrols the first passkey from the bootstrap session and signs in with it', async () => {
    const authenticator = new SoftwareAuthenticator();
    const restricted = await bootstrapOwner(identity);
    const start = await registrationStart(identity, restricted);
    expect(start.res.status).toBe(200);
    const options = start.res.body.publicKey;
    expect(options.pubKeyCredParams).toEqual([
      { alg: -7, type: 'public-key' },
      { alg: -8, type: 'public-key' },
      { alg: -257, type: 'public-key' },
    ]);
    expect(options.authenticatorSelection).toEqual({
      residentKey: 'required',
      requireResidentKey: true,
      userVerification: 'required',
    });
    expect(options.attestation).toBe('none');
    expect(options.hints).toEqual([]);
    const registered = await registerPasskey(identity, restricted, authenticator);
    expect(registered.status).toBe(200);
    expect(registered.body.replacementRecoveryCodes).toHaveLength(10);
    expect(registered.body.passkey).toMatchObject({ name: 'Laptop', state: 'active', transports: ['internal'] });
    const me = await request(identity.app.getHttpServer()).get('/identity/v1/me').set('cookie', restricted.cookie);
    expect(me.status).toBe(401);
    const signedIn = await signIn(identity, authenticator);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.assurance).toBe('passkey');
    const session = sessionOf(signedIn);
    const me2 = await request(identity.app.getHttpServer()).get('/identity/v1/me').set('cookie', session.cookie);
    expect(me2.status).toBe(200);
    identity.clock.advance({ minutes: 10 });
    const stepped = await stepUp(identity, session, authenticator);
    expect(stepped.status).toBe(200);
    expect(stepped.body.assurance).toBe('step_up');
  });
});
