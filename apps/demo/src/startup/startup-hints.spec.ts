import { describe, expect, it } from '@jest/globals';
import { environmentMarkerAdvice } from '../identity/demo-identity.provision.js';
import { startupHints, type StartupFacts } from './startup-hints.js';

const DEVELOPMENT: StartupFacts = {
  environment: 'development',
  listenUrl: 'http://localhost:3000',
  publicUrl: 'http://localhost:3000',
  database: 'embedded PGlite (.data/pglite)',
  bootstrap: 'pending',
  empty: true,
  deployed: false,
  metricsKeySet: true,
};
const PRODUCTION: StartupFacts = {
  ...DEVELOPMENT,
  environment: 'production',
  publicUrl: 'https://id.example.com',
  database: 'PostgreSQL (DATABASE_URL)',
  deployed: true,
};

const firstStep = (facts: StartupFacts) => startupHints(facts).find((line) => line.startsWith('First step'));

describe('startup hints', () => {
  it('print the URL and send a new server with a pending bootstrap to /identity/bootstrap', () => {
    const lines = startupHints(DEVELOPMENT);
    expect(lines[0]).toBe(
      'Tessera demo (development) listening on http://localhost:3000 — database: embedded PGlite (.data/pglite)',
    );
    expect(firstStep(DEVELOPMENT)).toBe(
      'First step: open http://localhost:3000/identity/bootstrap to create the first owner with the bootstrap secret',
    );
    expect(lines).toContain(
      'Every page and the API docs: http://localhost:3000/ and http://localhost:3000/identity/docs',
    );
  });

  it('send a server that already has an owner to sign in at /identity', () => {
    expect(firstStep({ ...DEVELOPMENT, empty: false, bootstrap: 'retired' })).toBe(
      'First step: sign in at http://localhost:3000/identity',
    );
  });

  it('say how to enable bootstrap when the store is empty but bootstrap is retired (development secret)', () => {
    expect(firstStep({ ...DEVELOPMENT, bootstrap: 'retired' })).toBe(
      'First step: no owner exists yet and bootstrap is retired; set TESSERA_BOOTSTRAP_SECRET (16..512 chars) and restart, then open http://localhost:3000/identity/bootstrap',
    );
  });

  it('name the production bootstrap reference variable, never a secret', () => {
    expect(firstStep({ ...PRODUCTION, bootstrap: 'retired' })).toContain(
      'set TESSERA_BOOTSTRAP_SECRET_REF (a reference',
    );
  });

  it('ask to retire a bootstrap secret left configured after the owner exists', () => {
    const lines = startupHints({ ...PRODUCTION, empty: false });
    expect(lines).toContain('First step: sign in at https://id.example.com/identity');
    expect(lines).toContain('Bootstrap is complete: unset TESSERA_BOOTSTRAP_SECRET_REF and restart to retire it');
  });

  it('show the public URL behind the proxy, where every link points', () => {
    const lines = startupHints(PRODUCTION);
    expect(lines).toContain('Public URL (through the TLS-terminating proxy): https://id.example.com');
    expect(firstStep(PRODUCTION)).toBe(
      'First step: open https://id.example.com/identity/bootstrap to create the first owner with the bootstrap secret',
    );
    expect(lines.filter((line) => line.includes('Public URL'))).toHaveLength(1);
    expect(startupHints(DEVELOPMENT).some((line) => line.includes('Public URL'))).toBe(false);
  });

  it('say where the probes are: the public listener, or the management listener once it is set', () => {
    expect(startupHints(DEVELOPMENT)).toContain(
      'Probes: http://localhost:3000/live and http://localhost:3000/ready (set TESSERA_MANAGEMENT_PORT to move them and /metrics off this listener)',
    );
    const managementAddress = { address: '0.0.0.0', family: 'IPv4', port: 9000 };
    expect(startupHints({ ...DEVELOPMENT, managementAddress })).toContain(
      'Probes and /metrics on the management listener 0.0.0.0:9000: GET /live, GET /ready',
    );
    expect(
      startupHints({ ...DEVELOPMENT, managementAddress: { address: '::', family: 'IPv6', port: 9000 } }),
    ).toContain('Probes and /metrics on the management listener [::]:9000: GET /live, GET /ready');
  });

  it('mention the metrics key only while it is unset', () => {
    const hint = 'GET /metrics answers 401 until TESSERA_METRICS_API_KEY is set';
    expect(startupHints({ ...DEVELOPMENT, metricsKeySet: false })).toContain(hint);
    expect(startupHints(DEVELOPMENT)).not.toContain(hint);
  });
});

describe('environment marker advice', () => {
  const development = { environment: 'development', namespace: 'tessera_development' };

  it('tells a development start on a production database to start in production, not to provision again', () => {
    const advice = environmentMarkerAdvice({ environment: 'production', namespace: 'tessera_production' }, development);
    expect(advice).toContain('provisioned for production/tessera_production, but the demo started as development');
    expect(advice).toContain('start it with NODE_ENV=production');
    expect(advice).not.toContain('npm run provision');
  });

  it('tells a production start on an unprovisioned database to migrate and provision', () => {
    expect(
      environmentMarkerAdvice(undefined, { environment: 'production', namespace: 'tessera_production' }),
    ).toContain('run `npm run migrate` then `npm run provision`');
  });

  it('names both markers when the namespace differs', () => {
    expect(
      environmentMarkerAdvice(
        { environment: 'production', namespace: 'acme_production' },
        { environment: 'production', namespace: 'tessera_production' },
      ),
    ).toContain('set TESSERA_ENVIRONMENT/TESSERA_STORAGE_NAMESPACE to match');
  });
});
