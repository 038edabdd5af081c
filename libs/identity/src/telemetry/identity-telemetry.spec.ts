import { describe, it, expect, beforeEach, afterEach } from '@jest/globals';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { createTestExchange, Pipeline, type Middleware } from '@tessera/web';
import { TelemetryCapture } from '../../../../test/support/telemetry-capture.js';
import { IdentityError } from '../errors/identity.errors.js';
import { OAuthError } from '../errors/oauth.errors.js';
import type { IdentityStore } from '../store/identity-store.port.js';
import { markSignIn, recordRateLimited, tracedRoute, tracedStage, tracedStore } from './identity-telemetry.js';

const SECRET = 'secret-token-value-that-must-not-leak';

/** A store double with a read, a replay-detecting command, a throwing command and a plain property. */
function fakeStore() {
  return {
    kind: 'fake',
    findUser: async (id: string) => ({ id }),
    rotateDeviceRefreshToken: async () => ({ ok: false as const, code: 'replay_detected' as const }),
    revokeSession: async () => {
      throw new Error(`store exploded with ${SECRET}`);
    },
  } as unknown as IdentityStore & { kind: string };
}

async function run(...stages: Middleware[]) {
  const { exchange } = createTestExchange({ method: 'POST', url: '/identity/v1/bootstrap' });
  const pipeline = new Pipeline();
  for (const stage of stages) pipeline.use(stage);
  await pipeline.handle(exchange);
  return exchange;
}

describe('identity telemetry', () => {
  let telemetry: TelemetryCapture;
  beforeEach(() => {
    telemetry = TelemetryCapture.start();
  });
  afterEach(async () => {
    await telemetry.stop();
  });

  it('traces and times every store command by name, outcome and failure code, counting replays', async () => {
    const store = tracedStore(fakeStore()) as IdentityStore & { kind: string };
    expect(store.kind).toBe('fake');
    await expect(store.findUser('01900000-0000-7000-8000-000000000001')).resolves.toEqual({
      id: '01900000-0000-7000-8000-000000000001',
    });
    const rotate = store.rotateDeviceRefreshToken as unknown as () => Promise<unknown>;
    await expect(rotate()).resolves.toEqual({ ok: false, code: 'replay_detected' });
    const revoke = store.revokeSession as unknown as () => Promise<unknown>;
    await expect(revoke()).rejects.toThrow(SECRET);

    const spans = telemetry.spans();
    expect(spans.map((span) => [span.name, span.attributes])).toEqual([
      ['identity.store findUser', { 'identity.store.command': 'findUser', 'identity.outcome': 'ok' }],
      [
        'identity.store rotateDeviceRefreshToken',
        {
          'identity.store.command': 'rotateDeviceRefreshToken',
          'identity.outcome': 'failed',
          'identity.store.failure': 'replay_detected',
        },
      ],
      ['identity.store revokeSession', { 'identity.store.command': 'revokeSession', 'identity.outcome': 'error' }],
    ]);
    expect(spans[2]!.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(spans[2]!.events).toEqual([]);
    const metrics = await telemetry.metrics();
    expect(metrics.get('tessera.identity.store.duration')!.map((point) => point.attributes)).toEqual([
      { 'identity.store.command': 'findUser', 'identity.outcome': 'ok' },
      {
        'identity.store.command': 'rotateDeviceRefreshToken',
        'identity.outcome': 'failed',
        'identity.store.failure': 'replay_detected',
      },
      { 'identity.store.command': 'revokeSession', 'identity.outcome': 'error' },
    ]);
    expect(metrics.get('tessera.identity.replays_detected')).toEqual([
      { attributes: { 'identity.store.command': 'rotateDeviceRefreshToken' }, value: 1 },
    ]);
    expect((await telemetry.texts()).filter((line) => line.includes(SECRET))).toEqual([]);
  });

  it('lets a method assigned on the traced store (a test spy) shadow the store’s', async () => {
    const store = tracedStore(fakeStore());
    const spy = async () => ({ id: 'spied' });
    (store as unknown as { findUser: typeof spy }).findUser = spy;
    expect(store.findUser).toBe(spy);
    delete (store as unknown as { findUser?: typeof spy }).findUser;
    await expect(store.findUser('x')).resolves.toEqual({ id: 'x' });
  });

  it('ends a stage span when the stage hands on, so the next stage is its sibling', async () => {
    const request = await trace.getTracer('test').startActiveSpan('request', async (span) => {
      await run(
        tracedStage('request_id', async (_exchange, next) => next()),
        tracedStage('csrf', async () => undefined),
      );
      span.end();
      return span.spanContext().spanId;
    });
    const [first, second] = telemetry.spans();
    expect(first!.name).toBe('identity.stage request_id');
    expect(first!.attributes).toEqual({ 'identity.stage': 'request_id', 'identity.outcome': 'passed' });
    expect(second!.name).toBe('identity.stage csrf');
    expect(second!.attributes).toEqual({ 'identity.stage': 'csrf', 'identity.outcome': 'answered' });
    expect([first!.parentSpanContext?.spanId, second!.parentSpanContext?.spanId]).toEqual([request, request]);
  });

  it('records a stage that throws by error code and status, never by message', async () => {
    await expect(
      run(
        tracedStage('credential_resolution', async () => {
          throw new IdentityError('session_revoked');
        }),
      ),
    ).rejects.toThrow(IdentityError);
    const [span] = telemetry.spans();
    expect(span!.attributes).toEqual({
      'identity.stage': 'credential_resolution',
      'identity.outcome': 'error',
      'identity.error.code': 'session_revoked',
      'http.response.status_code': 401,
    });
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR });
  });

  it('names route spans by template and counts sign-in outcomes, not limiter refusals or pending polls', async () => {
    const route = tracedRoute('POST', '/identity/v1/recovery/codes/use', 'recovery_code');
    await run(route, async () => undefined);
    await expect(run(route, async () => Promise.reject(new IdentityError('invalid_credentials')))).rejects.toThrow();
    await expect(
      run(route, async () => Promise.reject(new IdentityError('rate_limited', { retryAfterSeconds: 1 }))),
    ).rejects.toThrow();
    const token = tracedRoute('POST', '/oauth/token');
    const polled =
      (code: 'authorization_pending' | 'invalid_grant'): Middleware =>
      async (exchange) => {
        markSignIn(exchange, 'device_token');
        throw new OAuthError(code);
      };
    await expect(run(token, polled('authorization_pending'))).rejects.toThrow();
    await expect(run(token, polled('invalid_grant'))).rejects.toThrow();
    await expect(run(token, async () => Promise.reject(new Error(SECRET)))).rejects.toThrow();

    const spans = telemetry.spans();
    expect(spans.map((span) => span.name)).toEqual([
      ...Array(3).fill('identity.route POST /identity/v1/recovery/codes/use'),
      ...Array(3).fill('identity.route POST /oauth/token'),
    ]);
    expect(spans[0]!.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/identity/v1/recovery/codes/use',
      'identity.outcome': 'ok',
    });
    expect(spans[1]!.attributes).toMatchObject({ 'identity.error.code': 'invalid_credentials' });
    expect(spans[5]!.attributes).toMatchObject({
      'identity.outcome': 'error',
      'identity.error.code': 'internal_error',
    });
    const signIns = (await telemetry.metrics()).get('tessera.identity.signins')!;
    expect(signIns).toEqual(
      expect.arrayContaining([
        { attributes: { 'identity.outcome': 'succeeded', 'identity.auth_method': 'recovery_code' }, value: 1 },
        { attributes: { 'identity.outcome': 'failed', 'identity.auth_method': 'recovery_code' }, value: 1 },
        { attributes: { 'identity.outcome': 'failed', 'identity.auth_method': 'device_token' }, value: 1 },
      ]),
    );
    expect(signIns).toHaveLength(3);
    expect((await telemetry.texts()).filter((line) => line.includes(SECRET))).toEqual([]);
  });

  it('counts limiter refusals by policy', async () => {
    recordRateLimited('bootstrap');
    recordRateLimited('bootstrap');
    recordRateLimited('recovery_code');
    expect((await telemetry.metrics()).get('tessera.identity.rate_limited')).toEqual([
      { attributes: { 'identity.rate_limit.policy': 'bootstrap' }, value: 2 },
      { attributes: { 'identity.rate_limit.policy': 'recovery_code' }, value: 1 },
    ]);
  });
});

describe('identity telemetry without an SDK', () => {
  it('is the API no-op: nothing records, every call still returns its result', async () => {
    expect(trace.getTracer('@tessera/identity').startSpan('probe').isRecording()).toBe(false);
    const store = tracedStore(fakeStore());
    await expect(store.findUser('a')).resolves.toEqual({ id: 'a' });
    const exchange = await run(tracedRoute('POST', '/identity/v1/bootstrap', 'bootstrap'), async (ex) => {
      ex.respond({ status: 204 });
    });
    expect(exchange.responded).toBe(true);
  });
});
