import { auditEventRow } from './audit-log.panel.mjs';
import type { AuditEventView, AuditPage, OrganizationContext } from './organizations.api.mjs';
import { isProvisioningEvent } from './scim.api.mjs';
import { announce, byId, runAction, show } from './ui.mjs';

/** How many provisioning events the page shows. */
export const SHOWN_EVENTS = 20;
/** Audit events per request (the route's largest page). */
const PAGE_SIZE = 100;
/** Pages read at most per refresh: the newest 500 audit events are searched, never more. */
const MAX_PAGES = 5;

/**
 * The newest provisioning events of the organization: the audit log (route 29) has no action
 * filter, so its newest pages are read, newest first, and the SCIM ones kept (actions `scim…`,
 * and changes whose reason code is `scim:<provider>`) until there are 20 or 500 events were
 * searched.
 *
 * @example
 * const events = new ProvisioningEventsPanel(page);
 * events.wire();
 * await events.reload();
 */
export class ProvisioningEventsPanel {
  constructor(private readonly page: OrganizationContext) {}

  wire(): void {
    const refresh = byId<HTMLButtonElement>('scim-events-refresh');
    refresh.addEventListener('click', () =>
      runAction(refresh, async () => {
        const shown = await this.reload();
        announce(`Showing the ${shown} newest provisioning event(s).`);
      }),
    );
  }

  /** Reads the newest events again; returns how many are shown. */
  async reload(): Promise<number> {
    const { events, searched, complete } = await this.search();
    byId('scim-events-body').replaceChildren(
      ...events.map((event) => auditEventRow(event, this.page.userId, this.page.names)),
    );
    show(byId('scim-events-table'), events.length > 0);
    show(byId('scim-events-empty'), events.length === 0);
    const partial = byId('scim-events-partial');
    partial.textContent = `Only the newest ${searched} audit events were searched; the organization page’s audit log has them all.`;
    show(partial, !complete && events.length < SHOWN_EVENTS);
    return events.length;
  }

  private async search(): Promise<{ events: AuditEventView[]; searched: number; complete: boolean }> {
    const { org } = this.page;
    const events: AuditEventView[] = [];
    let cursor: string | undefined;
    let searched = 0;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      // The cursor goes back verbatim: the route refuses any re-encoding.
      const query = cursor === undefined ? `limit=${PAGE_SIZE}` : `limit=${PAGE_SIZE}&cursor=${cursor}`;
      const answer = await org.api.call<AuditPage>('GET', `${org.path('audit-events')}?${query}`);
      searched += answer.events.length;
      events.push(...answer.events.filter(isProvisioningEvent));
      cursor = answer.nextCursor;
      if (events.length >= SHOWN_EVENTS || cursor === undefined) break;
    }
    return { events: events.slice(0, SHOWN_EVENTS), searched, complete: cursor === undefined };
  }
}
