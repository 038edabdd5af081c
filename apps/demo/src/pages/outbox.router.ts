import { Router } from '@tessera/web';
import type { DevelopmentOutbox, OutboxMessage } from '../identity/development-outbox.js';
import type { PageAssets } from './page-assets.js';
import { PAGE_HEADERS } from './page-headers.js';
import { renderPage } from './templates/page-layout.template.js';

/** The development outbox page; registered only in development, so any other environment answers 404. */
export const OUTBOX_PATH = '/identity/dev/outbox';

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML content and attribute values. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

function messageItem(message: OutboxMessage): string {
  const inviter = message.inviterDisplayName ?? 'The organization';
  const subject = `${inviter} invited you to ${message.organizationName} as ${message.role}`;
  return `<li class="outbox-message">
<h3>${escapeHtml(subject)}</h3>
<p>To <strong>${escapeHtml(message.email)}</strong>, sent <time datetime="${escapeHtml(message.sentAt)}">${escapeHtml(message.sentAt)}</time>; the link works once, until <time datetime="${escapeHtml(message.expiresAt)}">${escapeHtml(message.expiresAt)}</time>.</p>
<p><a class="outbox-link" href="${escapeHtml(message.enrollUrl)}">Accept the invitation</a> <button type="button" class="secondary copy-link" data-link="${escapeHtml(message.enrollUrl)}">Copy the link</button></p>
</li>`;
}

/**
 * `GET /identity/dev/outbox`: what the development notification sink "sent", newest first — the
 * demo's stand-in for an inbox, so invitations can be followed without an SMTP server. Open a
 * link in another browser profile to enrol as the invitee.
 *
 * @example
 * RouterModule.forFeature({ routers: [{ useValue: outboxRouter(outbox, assets) }] });
 */
export function outboxRouter(outbox: DevelopmentOutbox, assets: PageAssets): Router {
  return new Router().get(OUTBOX_PATH, (exchange) => {
    const messages = outbox.messages();
    const body =
      messages.length === 0
        ? '<p id="outbox-empty">Nothing was sent yet. Invite someone from an organization page; the invitation arrives here.</p>'
        : `<ol id="outbox" class="outbox">${messages.map(messageItem).join('\n')}</ol>`;
    const page = {
      title: 'Development outbox',
      script: 'outbox.page.js',
      body: `<p class="hint">Development only: what the notification sink delivered. In staging and production, configure a sink that sends email.</p>\n${body}`,
    };
    // Without built assets (a test run from source) the list is still served, unstyled.
    const html = renderPage(page, assets) ?? `<!doctype html>\n<title>${page.title}</title>\n<h1>${page.title}</h1>\n${page.body}\n`;
    exchange.respond({ body: html, headers: PAGE_HEADERS });
  });
}
