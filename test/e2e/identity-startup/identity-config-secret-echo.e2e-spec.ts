import { describe, expect, it } from '@jest/globals';
import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { IdentityConfigError, type IdentityConfig, type IdentityConfigRule } from '@tessera/identity';
import { RouterModule } from '@tessera/web';
import { EntityManager, MikroORM } from '@mikro-orm/core';
import {
  CapturedLogger,
  hardenedConfig,
  useMigratedIdentityDatabase,
  identityForRoot,
  runtimeWith,
  secretValues,
} from './identity-startup.support.js';

/** Where an operator pastes a secret value instead of its reference, and the rule that refuses it. */
const PASTES: readonly {
  readonly name: string;
  readonly rule: IdentityConfigRule;
  readonly path: string;
  readonly paste: (secret: string, base: IdentityConfig) => Partial<IdentityConfig>;
}[] = [
  {
    name: 'an opaque secret as the session pepper reference',
    rule: 'secret_reference_invalid',
    path: 'secrets.sessionPepper.current',
    paste: (secret, base) => ({ secrets: { ...base.secrets, sessionPepper: { current: secret } } }),
  },
  {
    name: 'a secret shaped like <scheme>:<name> as the audit key reference',
    rule: 'secret_reference_environment',
    path: 'secrets.auditKey',
    paste: (secret, base) => ({ secrets: { ...base.secrets, auditKey: `pw:${secret}` } }),
  },
  {
    name: 'a secret as a previous key version',
    rule: 'secret_reference_invalid',
    path: 'secrets.recoveryPepper.previous[0]',
    paste: (secret, base) => ({
      secrets: {
        ...base.secrets,
        recoveryPepper: { current: `${base.secrets.recoveryPepper.current}@v2`, previous: [secret] },
      },
    }),
  },
  {
    name: 'a secret as the bootstrap secret reference',
    rule: 'secret_reference_invalid',
    path: 'bootstrap.secretRef',
    paste: (secret) => ({ bootstrap: { lifecycle: 'pending', secretRef: secret } }),
  },
];

describe('a secret value pasted where a secret reference belongs is never echoed (issue 11 item 6)', () => {
  const database = useMigratedIdentityDatabase();

  it.each(PASTES)('names the rule and option path, not the value, for $name', async ({ rule, path, paste }) => {
    const secret = randomBytes(32).toString('base64url');
    const base = hardenedConfig('production');
    const config = { ...base, ...paste(secret, base) };
    const logger = new CapturedLogger();
    const orm = database().orm;
    @Global()
    @Module({
      providers: [
        { provide: MikroORM, useValue: orm },
        { provide: EntityManager, useFactory: () => orm.em },
      ],
      exports: [MikroORM, EntityManager],
    })
    class OrmModule {}
    @Module({
      imports: [OrmModule, RouterModule.forRoot(), identityForRoot(config, runtimeWith(secretValues('production')))],
    })
    class PastedSecretAppModule {}

    // NestFactory (not the testing module) so Nest's own startup exception log is captured too.
    const error = await NestFactory.create(PastedSecretAppModule, { logger, abortOnError: false }).then(
      async (app) => {
        await app.close();
        return undefined;
      },
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(IdentityConfigError);
    const configError = error as IdentityConfigError;
    expect(configError.rule).toBe(rule);
    expect(configError.message).toContain(path);
    expect(logger.lines.join('\n')).toContain(path);
    for (const text of [configError.message, String(configError.stack), ...logger.lines]) {
      expect(text).not.toContain(secret);
    }
  });
});
