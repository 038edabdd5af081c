import { describe, expect, it } from '@jest/globals';
import { CliError, ExitCode } from '../cli.errors.js';
import { HttpClient } from '../http/http.client.js';
import { pollForTokens, type DeviceAuthorization } from './device-flow.client.js';

const STARTED: DeviceAuthorization = {
  device_code: 'device-code',
  user_code: 'BCDF-GHJK',
  verification_uri: 'https://id.example.com/device',
  expires_in: 600,
  interval: 5,
};
const TOKENS = {
  access_token: 'access',
  token_type: 'Bearer',
  expires_in: 900,
  refresh_token: 'refresh',
  scope: 'identity.profile',
};

/** A token endpoint answering `bodies` in order (status 200 for a token body, 400 otherwise). */
function tokenEndpoint(bodies: object[]) {
  const forms: URLSearchParams[] = [];
  const http = new HttpClient('https://id.example.com', {
    fetch: async (_url, init) => {
      forms.push(new URLSearchParams(String(init?.body)));
      const body = bodies.shift()!;
      return new Response(JSON.stringify(body), { status: 'access_token' in body ? 200 : 400 });
    },
  });
  return { http, forms };
}

/** A clock advanced only by the poller's own waits. */
function fakeTime() {
  let now = 0;
  const waits: number[] = [];
  return {
    waits,
    now: () => now,
    sleep: async (ms: number) => {
      waits.push(ms);
      now += ms;
    },
  };
}

describe('pollForTokens', () => {
  it('waits the interval before each poll and adds 5 s for each slow_down, cumulatively', async () => {
    const { http, forms } = tokenEndpoint([
      { error: 'authorization_pending' },
      { error: 'slow_down' },
      { error: 'authorization_pending' },
      { error: 'slow_down' },
      TOKENS,
    ]);
    const time = fakeTime();
    const tokens = await pollForTokens(http, 'tessera-cli', STARTED, time);
    expect(tokens).toEqual({
      access_token: 'access',
      refresh_token: 'refresh',
      expires_in: 900,
      scope: 'identity.profile',
    });
    expect(time.waits).toEqual([5000, 5000, 10_000, 10_000, 15_000]);
    expect(Object.fromEntries(forms[0]!)).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: 'device-code',
      client_id: 'tessera-cli',
    });
  });

  it.each([
    ['access_denied', 'The login was denied in the browser.'],
    ['expired_token', 'The code expired before it was approved. Run `tessera login` again.'],
  ])('stops at %s with one line and exit 1', async (error, message) => {
    const { http } = tokenEndpoint([{ error: 'authorization_pending' }, { error }]);
    await expect(pollForTokens(http, 'tessera-cli', STARTED, fakeTime())).rejects.toEqual(
      new CliError(message, ExitCode.failure),
    );
  });

  it('stops polling once the code has expired without asking the server again', async () => {
    const pending = Array.from({ length: 200 }, () => ({ error: 'authorization_pending' }));
    const { http, forms } = tokenEndpoint(pending);
    await expect(pollForTokens(http, 'tessera-cli', { ...STARTED, expires_in: 12 }, fakeTime())).rejects.toMatchObject({
      exitCode: ExitCode.failure,
      message: expect.stringContaining('expired'),
    });
    expect(forms).toHaveLength(2);
  });
});
