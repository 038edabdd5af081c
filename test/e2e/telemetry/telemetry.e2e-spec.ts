import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { IdentityInvitations } from '@tessera/identity';
import { SoftwareAuthenticator } from '@tessera/identity-testing';
import type { IdentityTestApp } from '../../support/identity-app.js';
import { post, registerPasskey, sessionOf, signIn, stepUp, type TestSession } from '../../support/passkey-client.js';
import { TelemetryCapture, type MetricPoint } from '../../support/telemetry-capture.js';
import { encodedForms, SecretScan, storedDigests, textForms } from '../identity-errors/secret-scan.support.js';
import { wrongRecoveryCode } from '../recovery/recovery-e2e.support.js';
import {
  bootDeviceApp,
  decide,
  pollToken,
  refreshToken,
  seedApprover,
  startDevice,
} from '../device/device.fixtures.js';

/**
 * Issue 17 item 6 acceptance: with an SDK registered (in-memory span exporter, on-demand metric
 * reader), the identity journeys run over HTTP against the real database; the stage, route and
 * store spans and the four metrics appear with their closed attribute sets, and no span name,
 * attribute, event or metric attribute carries a token, digest, cookie, CSRF token, recovery code,
 * email, address, configured secret or id of a user, session or organization.
 */

/** Every attribute key the identity platform may emit. */
const KEYS = new Set([
  'identity.stage',
  'identity.outcome',
  'identity.error.code',
  'identity.store.command',
  'identity.store.failure',
  'identity.auth_method',
  'identity.rate_limit.policy',
  'http.request.method',
  'http.route',
  'http.response.status_code',
]);

const sum = (points: readonly MetricPoint[] | undefined, attributes: Record<string, string>) =>
  (points ?? [])
    .filter((point) => Object.entries(attributes).every(([key, value]) => point.attributes[key] === value))
    .reduce((total, point) => total + point.value, 0);

describe('telemetry of the identity journeys', () => {
  let telemetry: TelemetryCapture;
  let identity: IdentityTestApp;
  const scan = new SecretScan(() => identity);
  const { needles } = scan;
  const secret = (label: string, value: string) => needles.push({ label, forms: textForms(value) });
  const token = (label: string, value: string) =>
    needles.push({ label, forms: [...textForms(value), ...value.split('.').flatMap((part) => encodedForms(part))] });
  const session = (label: string, granted: TestSession) => {
    token(`${label} cookie`, granted.cookie.split('=')[1]!);
    token(`${label} CSRF token`, granted.csrfToken);
    secret(`${label} session id`, granted.sessionId);
    secret(`${label} user id`, granted.userId);
  };

  beforeAll(async () => {
    telemetry = TelemetryCapture.start();
    identity = await bootDeviceApp({ bootstrap: { limit: 3, windowSeconds: 3600 } });
    for (const value of identity.secrets) secret('configured secret', value);
    secret('bootstrap secret', identity.bootstrapSecret);
    secret('client address', '127.0.0.1');
  });
  afterAll(async () => {
    await identity?.close();
    await telemetry?.stop();
  });

  let owner: TestSession;
  let organizationId: string;
  let codes: string[];

  it('bootstraps, registers a passkey, signs in, steps up and fails a sign-in with a forged signature', async () => {
    const email = 'ada@example.com';
    secret('owner email', email);
    const boot = await post(identity, '/identity/v1/bootstrap').send({
      secret: identity.bootstrapSecret,
      displayName: 'Ada Lovelace',
      primaryEmail: email,
      organizationName: 'Analytical Engines',
      organizationSlug: 'engines',
    });
    expect(boot.status).toBe(201);
    organizationId = boot.body.organization.id;
    secret('organization id', organizationId);
    const restricted = sessionOf(boot);
    session('bootstrap', restricted);
    const authenticator = new SoftwareAuthenticator();
    const registered = await registerPasskey(identity, restricted, authenticator);
    expect(registered.status).toBe(200);
    codes = registered.body.replacementRecoveryCodes;
    for (const code of codes) secret('recovery code', code);
    secret('passkey id', registered.body.passkey.id);
    const signedIn = await signIn(identity, authenticator);
    expect(signedIn.status).toBe(200);
    owner = sessionOf(signedIn);
    session('passkey', owner);
    const steppedUp = await stepUp(identity, owner, authenticator);
    expect(steppedUp.status).toBe(200);
    owner = sessionOf(steppedUp);
    session('step-up', owner);
    const forged = await signIn(identity, authenticator, { overrides: { tamperSignature: true } });
    expect(forged.status).toBe(401);
  });

  it('signs in with a recovery code and refuses a wrong one', async () => {
    const used = await post(identity, '/identity/v1/recovery/codes/use').send({ code: codes[0] });
    expect(used.status).toBe(200);
    session('recovery', sessionOf(used));
    const wrong = await post(identity, '/identity/v1/recovery/codes/use').send({ code: wrongRecoveryCode(codes[1]!) });
    expect(wrong.status).toBe(401);
  });

  it('enrolls through an invitation once, then refuses its reuse', async () => {
    const email = 'grace@example.com';
    secret('invitee email', email);
    const invited = await identity.app
      .get(IdentityInvitations)
      .create({ organizationId, email, role: 'publisher', invitedByUserId: owner.userId });
    token('invitation token', invited.token!);
    const enrolled = await post(identity, '/identity/v1/invitations/enroll').send({
      token: invited.token,
      displayName: 'Grace',
    });
    expect(enrolled.status).toBe(201);
    token('enrollment cookie', sessionOf(enrolled).cookie.split('=')[1]!);
    token('enrollment CSRF token', enrolled.body.csrfToken);
    const reused = await post(identity, '/identity/v1/invitations/enroll').send({
      token: invited.token,
      displayName: 'Again',
    });
    expect(reused.status).toBe(401);
  });

  it('grants device tokens and detects a replayed refresh token', async () => {
    const approver = await seedApprover(identity);
    secret('approver email', approver.email);
    session('approver', approver.session);
    const started = await startDevice(identity);
    token('device code', started.device_code);
    secret('user code', started.user_code);
    expect((await pollToken(identity, started.device_code)).body.error).toBe('authorization_pending');
    await decide(identity, started.user_code, approver, { approve: ['identity.profile'] });
    const issued = await pollToken(identity, started.device_code);
    expect(issued.status).toBe(200);
    token('access token', issued.body.access_token);
    token('refresh token', issued.body.refresh_token);
    identity.clock.advance({ minutes: 5 });
    const rotated = await refreshToken(identity, issued.body.refresh_token);
    expect(rotated.status).toBe(200);
    token('rotated access token', rotated.body.access_token);
    token('rotated refresh token', rotated.body.refresh_token);
    const next = await refreshToken(identity, rotated.body.refresh_token);
    expect(next.status).toBe(200);
    token('next access token', next.body.access_token);
    token('next refresh token', next.body.refresh_token);
    const replayed = await refreshToken(identity, issued.body.refresh_token);
    expect(replayed.body.error).toBe('invalid_grant');
  });

  it('rate-limits bootstrap attempts past the policy', async () => {
    const again = () =>
      post(identity, '/identity/v1/bootstrap').send({
        secret: identity.bootstrapSecret,
        displayName: 'Again',
        primaryEmail: 'ada@example.com',
        organizationName: 'Again',
        organizationSlug: 'again',
      });
    expect([(await again()).status, (await again()).status, (await again()).status]).toEqual([409, 409, 429]);
  });

  it('emits spans for every pipeline stage, the routes and the store commands, nested in the request', () => {
    const spans = telemetry.spans();
    const names = new Set(spans.map((span) => span.name));
    for (const stage of [
      'request_id',
      'federation_headers',
      'request_time',
      'authority_check',
      'credential_resolution',
      'csrf',
    ])
      expect(names).toContain(`identity.stage ${stage}`);
    for (const route of [
      'POST /identity/v1/bootstrap',
      'POST /identity/v1/passkeys/registration/finish',
      'POST /identity/v1/passkeys/authentication/finish',
      'POST /identity/v1/passkeys/step-up/finish',
      'POST /identity/v1/recovery/codes/use',
      'POST /identity/v1/invitations/enroll',
      'POST /oauth/device_authorization',
      'POST /oauth/token',
    ])
      expect(names).toContain(`identity.route ${route}`);
    expect([...names].filter((name) => name.startsWith('identity.store ')).length).toBeGreaterThan(15);

    // The replayed rotation ran inside its route's span, which carries the OAuth error code.
    const replay = spans.find((span) => span.attributes['identity.store.failure'] === 'replay_detected')!;
    expect(replay.name).toBe('identity.store rotateDeviceRefreshToken');
    const parent = spans.find((span) => span.spanContext().spanId === replay.parentSpanContext?.spanId)!;
    expect(parent.name).toBe('identity.route POST /oauth/token');
    expect(parent.attributes).toMatchObject({ 'identity.outcome': 'error', 'identity.error.code': 'invalid_grant' });
    const keys = new Set(spans.flatMap((span) => Object.keys(span.attributes)));
    expect([...keys].filter((key) => !KEYS.has(key))).toEqual([]);
  });

  it('records sign-ins by outcome and method, limiter refusals by policy, replays and store durations', async () => {
    const metrics = await telemetry.metrics();
    const signIns = metrics.get('tessera.identity.signins');
    const signInsOf = (outcome: string, method: string) =>
      sum(signIns, { 'identity.outcome': outcome, 'identity.auth_method': method });
    expect({
      bootstrap: signInsOf('succeeded', 'bootstrap'),
      bootstrapFailed: signInsOf('failed', 'bootstrap'),
      passkey: signInsOf('succeeded', 'passkey'),
      passkeyFailed: signInsOf('failed', 'passkey'),
      recovery: signInsOf('succeeded', 'recovery_code'),
      recoveryFailed: signInsOf('failed', 'recovery_code'),
      invitation: signInsOf('succeeded', 'invitation'),
      invitationFailed: signInsOf('failed', 'invitation'),
      device: signInsOf('succeeded', 'device_token'),
      deviceFailed: signInsOf('failed', 'device_token'),
    }).toEqual({
      bootstrap: 1,
      bootstrapFailed: 2,
      passkey: 1,
      passkeyFailed: 1,
      recovery: 1,
      recoveryFailed: 1,
      invitation: 1,
      invitationFailed: 1,
      device: 1,
      deviceFailed: 0,
    });
    expect(metrics.get('tessera.identity.rate_limited')).toEqual([
      { attributes: { 'identity.rate_limit.policy': 'bootstrap' }, value: 1 },
    ]);
    expect(metrics.get('tessera.identity.replays_detected')).toEqual([
      { attributes: { 'identity.store.command': 'rotateDeviceRefreshToken' }, value: 1 },
    ]);
    const durations = metrics.get('tessera.identity.store.duration')!;
    expect(sum(durations, { 'identity.store.command': 'rotateDeviceRefreshToken', 'identity.outcome': 'ok' })).toBe(2);
    expect(
      sum(durations, {
        'identity.store.command': 'rotateDeviceRefreshToken',
        'identity.outcome': 'failed',
        'identity.store.failure': 'replay_detected',
      }),
    ).toBe(1);
    const keys = new Set([...metrics.values()].flat().flatMap((point) => Object.keys(point.attributes)));
    expect([...keys].filter((key) => !KEYS.has(key))).toEqual([]);
  });

  it('carries no secret, digest, email, address or id in any span, event or metric attribute', async () => {
    const { digests } = await storedDigests(identity);
    expect(digests.length).toBeGreaterThanOrEqual(15);
    for (const digest of digests) needles.push({ label: 'stored digest', forms: encodedForms(digest) });
    const texts = await telemetry.texts();
    expect(texts.length).toBeGreaterThan(500);
    expect(needles.length).toBeGreaterThan(60);
    // The scan finds a needle placed in the telemetry texts (it would catch a leak).
    expect(new Set(scan.violations([...texts, `attribute ${owner.csrfToken}`]))).toEqual(
      new Set([`step-up CSRF token in log line #${texts.length}`]),
    );
    expect([...new Set(scan.violations(texts))]).toEqual([]);
  });
});
