import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { InvitationDelivery, InvitationNotificationSink } from '@tessera/identity';

/** One message the development outbox holds: an invitation as the sink received it. */
export interface OutboxMessage {
  readonly sentAt: string;
  readonly email: string;
  readonly organizationName: string;
  readonly inviterDisplayName: string | null;
  readonly role: string;
  readonly enrollUrl: string;
  readonly expiresAt: string;
}

/** The outbox keeps the newest messages only. */
const KEPT = 100;

/**
 * The demo's notification sink in development: every invitation "sent" lands here instead of an
 * SMTP server, and `GET /identity/dev/outbox` lists them, so the whole invitation flow works on a
 * laptop. With a file (under the demo's data directory, next to its development secrets) the
 * messages survive restarts and `npm run invite` in another process adds to the same outbox.
 * Development only: the messages hold enrolment links.
 *
 * @example
 * const outbox = new DevelopmentOutbox('.data/outbox.ndjson');
 * IdentityModule.forRoot({ ..., notificationSink: outbox });
 */
export class DevelopmentOutbox implements InvitationNotificationSink {
  private readonly memory: OutboxMessage[] = [];

  constructor(private readonly file?: string) {}

  async deliverInvitation(input: InvitationDelivery): Promise<void> {
    const message: OutboxMessage = {
      sentAt: new Date().toISOString(),
      email: input.email,
      organizationName: input.organizationName,
      inviterDisplayName: input.inviterDisplayName,
      role: input.role,
      enrollUrl: input.enrollUrl,
      expiresAt: input.expiresAt.toISOString(),
    };
    if (this.file === undefined) {
      this.memory.push(message);
      this.memory.splice(0, Math.max(0, this.memory.length - KEPT));
      return;
    }
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${JSON.stringify(message)}\n`, { mode: 0o600 });
    const kept = this.stored();
    if (kept.length > KEPT) writeFileSync(this.file, kept.slice(-KEPT).map((m) => `${JSON.stringify(m)}\n`).join(''));
  }

  /** The messages, newest first. */
  messages(): OutboxMessage[] {
    return [...(this.file === undefined ? this.memory : this.stored())].reverse();
  }

  private stored(): OutboxMessage[] {
    if (this.file === undefined || !existsSync(this.file)) return [];
    return readFileSync(this.file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as OutboxMessage];
        } catch {
          return []; // a torn line of an interrupted write
        }
      });
  }
}
