import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get } from '@nestjs/common';
import request from 'supertest';
import { IdentityHealth } from '@tessera/identity';
import { bootIdentityHostApp } from '../../support/identity-host-app.js';
import type { IdentityTestApp } from '../../support/identity-app.js';

@Controller()
class HostProbesController {
  @Get('ready')
  ready(): { host: string } {
    return { host: 'ready' };
  }
}

/**
 * `health.routes: false` leaves `/live` and `/ready` to the host (radix routes run ahead of Nest
 * controllers, so served identity probes would shadow a host controller there), while
 * `IdentityHealth` still answers in code.
 */
describe('IdentityModule with health.routes: false', () => {
  let identity: IdentityTestApp;

  beforeAll(async () => {
    identity = await bootIdentityHostApp({
      controllers: [HostProbesController],
      moduleOptions: { health: { routes: false } },
    });
  }, 120_000);

  afterAll(async () => {
    await identity?.close();
  });

  it('serves neither probe, so the host’s own /ready controller answers', async () => {
    const http = request(identity.app.getHttpServer());
    expect((await http.get('/ready')).body).toEqual({ host: 'ready' });
    expect((await http.get('/live')).status).toBe(404);
  });

  it('still runs the readiness checks in code', async () => {
    expect(await identity.app.get(IdentityHealth).ready()).toEqual({
      status: 'ready',
      checks: { database: 'ok', migrations: 'ok', selfTests: 'ok', rateLimiter: 'ok' },
    });
  });
});
