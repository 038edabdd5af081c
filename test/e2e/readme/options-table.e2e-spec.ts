import { describe, it, expect, beforeAll } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as identity from '@tessera/identity';
import { IDENTITY_CONFIG_DEFAULTS, resolveIdentityConfig, type IdentityConfig } from '@tessera/identity';
import {
  defaultTagMismatches,
  formatMarkdown,
  identityOptionsTable,
  optionsRegion,
} from '../../../scripts/options-table.mjs';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Every leaf path of a plain object (arrays and scalars are leaves). */
function leaves(value: unknown, prefix: string[] = []): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix.join('.')];
  return Object.entries(value).flatMap(([key, inner]) => leaves(inner, [...prefix, key]));
}

describe('README IdentityModule options table', () => {
  let readme: string;
  let table: string;
  beforeAll(async () => {
    readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    table = (await formatMarkdown(identityOptionsTable(identity))).trim();
  });

  it('is the generated table (run `npm run docs:options` after changing an option, a default or a bound)', () => {
    expect(optionsRegion(readme)).toBe(table);
  });

  it('has a row for every configuration option and every default', () => {
    const options = new Set([...table.matchAll(/^\| `([^`]+)`/gm)].map((match) => match[1]!));
    const input: IdentityConfig = {
      environment: 'development',
      publicBaseUrl: 'http://localhost:3000',
      rp: { id: 'localhost', name: 'Options' },
      secrets: {
        sessionPepper: { current: 'env:A_DEVELOPMENT_1', previous: [] },
        recoveryPepper: { current: 'env:A_DEVELOPMENT_2', previous: [] },
        devicePepper: { current: 'env:A_DEVELOPMENT_3', previous: [] },
        servicePepper: { current: 'env:A_DEVELOPMENT_4', previous: [] },
        auditKey: 'env:A_DEVELOPMENT_5',
        encryptionKey: 'env:A_DEVELOPMENT_6',
        signingKey: 'env:A_DEVELOPMENT_7',
      },
    };
    const resolved = leaves(resolveIdentityConfig(input));
    const policy = (path: string) => path.replace(/^(rateLimits\.[a-z_]+)\.(limit|windowSeconds)$/, '$1');
    for (const path of [...resolved, ...leaves(IDENTITY_CONFIG_DEFAULTS)].map(policy)) {
      expect([path, options.has(`config.${path}`)]).toEqual([path, true]);
    }
    for (const name of ['config', 'store', 'runtime', 'capabilityResolvers', 'organizationSelector']) {
      expect(options.has(name)).toBe(true);
    }
    expect(options.has('config.sessionCookie.domain')).toBe(true);
    expect(options.has('config.bootstrap.secretRef')).toBe(true);
  });

  it('shows the defaults and bounds validation uses', () => {
    const row = (option: string) => table.split('\n').find((line) => line.startsWith(`| \`${option}\``)) ?? '';
    expect(row('config.lifetimes.challengeSeconds')).toContain('`300` (5 min)');
    expect(row('config.lifetimes.challengeSeconds')).toContain('`30`..`600` (10 min)');
    expect(row('config.lifetimes.sessionIdleSeconds')).toContain('`1`..`lifetimes.sessionAbsoluteSeconds`');
    expect(row('config.maintenance.intervalSeconds')).toContain('`0` (off) or `30`..`86400` (1 d)');
    expect(row('config.rateLimits.bootstrap')).toContain('`{ limit: 5, windowSeconds: 900 }`');
    expect(row('config.registrationPolicy')).toContain("`'invitation_only'`");
    expect(row('config.rp.id')).toContain('required');
    expect(table).not.toMatch(/identity-(model|http)/);
  });

  it('agrees with the JSDoc @default of every option editors show', () => {
    expect(defaultTagMismatches(identity)).toEqual([]);
  });
});
