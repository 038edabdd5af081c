import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { IdentityInvitations, type CreateInvitationInput } from '@tessera/identity';
import { AppModule } from './app.module.js';

const USAGE =
  'usage: node dist/apps/demo/src/invite.js --organization <id> --email <address> [--role viewer|publisher|admin|owner] [--invited-by <userId>]';

/**
 * Development helper until the invitation routes arrive with organizations: creates an invitation
 * in the demo's database (the `DATABASE_URL` server, or the embedded PGlite under
 * `TESSERA_DATA_DIR`, which must not be open in a running demo) and prints one JSON line with the
 * enrolment link `http://localhost:<PORT>/identity/enroll#token=…`. The token is shown only here.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      organization: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string', default: 'viewer' },
      'invited-by': { type: 'string' },
    },
  });
  if (values.organization === undefined || values.email === undefined) throw new Error(USAGE);
  const port = Number(process.env.PORT ?? 3000);
  const dataRoot = process.env.TESSERA_DATA_DIR ?? '.data';
  // A full (never listening) app: the router's adapter hook needs the HTTP adapter to exist.
  const app = await NestFactory.create(
    AppModule.forRoot({
      dataDir: `${dataRoot}/pglite`,
      port,
      secretsFile: `${dataRoot}/identity-development-secrets.json`,
    }),
    { logger: ['error', 'warn'] },
  );
  await app.init();
  try {
    const { invitation, token, delivered } = await app.get(IdentityInvitations).create({
      organizationId: values.organization,
      email: values.email,
      role: values.role as CreateInvitationInput['role'], // validated by the service
      invitedByUserId: values['invited-by'] ?? null,
    });
    // Delivered through the notification sink (the development outbox): the link is there, not here.
    const where =
      token === undefined
        ? { outbox: `http://localhost:${port}/identity/dev/outbox` }
        : { url: `http://localhost:${port}/identity/enroll#token=${encodeURIComponent(token)}` };
    console.log(JSON.stringify({ invitationId: invitation.id, expiresAt: invitation.expiresAt, delivered, ...where }));
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exit(1);
});
