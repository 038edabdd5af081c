import { expect } from '@jest/globals';
import { Controller, Get } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/core';
import { randomBytes } from 'node:crypto';
import type request from 'supertest';
import { CurrentIdentity, RequireIdentity, RequireRecentPasskey, type IdentityContext } from '@tessera/identity';
import { seedPasskeySession, sessionCookieOf, TEST_ORIGIN, type IdentityTestApp } from '../../support/identity-app.js';

/**
 * Helpers of the secret-scan journey (identity-secret-scan.e2e-spec.ts): the host controller, the
 * capture of every response, the registry of values that must not leak (in every encoding a leak
 * would plausibly take), the collection of the digests the database stores, and the final scan.
 */

@Controller('host')
export class HostController {
  @Get('account')
  @RequireIdentity()
  account(@CurrentIdentity() identity: IdentityContext): { userId: string } {
    return { userId: identity.principal.id };
  }

  @Get('sensitive')
  @RequireRecentPasskey()
  sensitive(): { ok: true } {
    return { ok: true };
  }
}

/** One response as the client saw it. */
export interface Seen {
  readonly label: string;
  readonly status: number;
  readonly body: string;
  /** Every header but Set-Cookie, serialised. */
  readonly headers: string;
  readonly setCookie: string;
}

/** A value that must not leak, in every encoding to look for, and the one place it may appear. */
export interface Needle {
  readonly label: string;
  readonly forms: readonly string[];
  /** Index of the one response whose body may carry it (a CSRF token in its session-created body). */
  readonly allowedInBodyOf?: number;
  /** May appear in Set-Cookie (the session cookie secret). */
  readonly allowedInSetCookie?: boolean;
}

export const MARKER = `exception-marker-${randomBytes(12).toString('hex')}`;

/** The UTF-8 string as text, hex and base64. */
export const textForms = (value: string): string[] => {
  const bytes = Buffer.from(value, 'utf8');
  return [value, bytes.toString('hex'), bytes.toString('base64')];
};

/** A base64url value (a token part or a stored digest) as stored, hex and standard base64. */
export const encodedForms = (value: string): string[] => {
  const bytes = Buffer.from(value, 'base64url');
  return [value, bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64').replace(/=+$/, '')];
};

export const bootstrapBody = (secret: string) => ({
  secret,
  displayName: 'Owner',
  primaryEmail: 'owner@example.com',
  organizationName: 'Acme',
  organizationSlug: 'acme',
});

export const unsafe = (test: request.Test, session: { cookie: string; csrfToken: string }) =>
  test.set('cookie', session.cookie).set('origin', TEST_ORIGIN).set('x-csrf-token', session.csrfToken);

/** Every response the journey saw and every value that must not leak. */
export class SecretScan {
  readonly seen: Seen[] = [];
  readonly needles: Needle[] = [];

  constructor(private readonly identity: () => IdentityTestApp) {}

  async call(label: string, test: request.Test): Promise<request.Response> {
    const res = await test;
    const { 'set-cookie': setCookie, ...headers } = res.headers as Record<string, unknown>;
    this.seen.push({
      label,
      status: res.status,
      body: res.text ?? '',
      headers: JSON.stringify(headers),
      setCookie: JSON.stringify(setCookie ?? []),
    });
    return res;
  }

  /** Registers the secrets of a session that came back in Set-Cookie + a session-created body. */
  grantedSession(res: request.Response, label: string): { cookie: string; csrfToken: string } {
    const value = sessionCookieOf(res.headers as Record<string, unknown>);
    expect(value).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
    const csrfToken = res.body.csrfToken as string;
    expect(csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    this.needles.push({
      label: `${label} cookie secret`,
      forms: encodedForms(value!.split('.')[1]!),
      allowedInSetCookie: true,
    });
    this.needles.push({
      label: `${label} CSRF token`,
      forms: encodedForms(csrfToken),
      allowedInBodyOf: this.seen.length - 1,
    });
    return { cookie: `__Host-tessera_session=${value}`, csrfToken };
  }

  /** Seeds a passkey session whose cookie secret and CSRF token never travel in any response. */
  async seeded(label: string, userId?: string, over: { authenticatedAt?: Date } = {}) {
    const session = await seedPasskeySession(this.identity(), userId, over);
    this.needles.push({ label: `${label} cookie secret`, forms: encodedForms(session.cookie.split('.')[1]!) });
    this.needles.push({ label: `${label} CSRF token`, forms: encodedForms(session.csrfToken) });
    return session;
  }

  /** Every place a registered needle, in any of its forms, shows up in a response or a log line. */
  violations(logs: readonly string[]): string[] {
    const violations: string[] = [];
    for (const needle of this.needles) {
      for (const form of needle.forms) {
        this.seen.forEach((response, index) => {
          if (response.body.includes(form) && needle.allowedInBodyOf !== index)
            violations.push(`${needle.label} in the body of "${response.label}"`);
          if (response.headers.includes(form)) violations.push(`${needle.label} in the headers of "${response.label}"`);
          if (response.setCookie.includes(form) && needle.allowedInSetCookie !== true)
            violations.push(`${needle.label} in the Set-Cookie of "${response.label}"`);
        });
        logs.forEach((line, index) => {
          if (line.includes(form)) violations.push(`${needle.label} in log line #${index}`);
        });
      }
    }
    return violations;
  }
}

/**
 * The digests the database holds: every *_digest* value column, pseudonyms and limiter keys, with
 * their version and kind prefixes stripped; and how many columns were read.
 */
export async function storedDigests(identity: IdentityTestApp): Promise<{ columnCount: number; digests: string[] }> {
  const em = identity.app.get(MikroORM).em.fork();
  const columns = await em.getConnection().execute<{ table_name: string; column_name: string }[]>(
    `select table_name, column_name from information_schema.columns
        where table_schema = 'tessera_identity'
          and ((column_name like '%digest%' and column_name not like '%algorithm' and column_name not like '%key_version')
               or column_name in ('bucket_key', 'request_user_agent'))`,
  );
  const stored: string[] = [];
  for (const { table_name, column_name } of columns) {
    const rows = await em
      .getConnection()
      .execute<{ v: string }[]>(
        `select distinct "${column_name}"::text as v from tessera_identity."${table_name}" where "${column_name}" is not null`,
      );
    stored.push(...rows.map((row: { v: string }) => row.v));
  }
  const digests = stored.map((value) => value.replace(/^v1\./, '').replace(/^[a-z_]+:/, ''));
  return { columnCount: columns.length, digests };
}
