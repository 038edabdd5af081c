import type { AuditEventView, AuditPage, OrganizationContext } from './organizations.api.mjs';
import { announce, byId, codeText, rowHeader, runAction, show, tableCell, timeElement } from './ui.mjs';

/** Events per request (route 29 allows 1–100). */
const PAGE_SIZE = 10;

/**
 * The organization's audit log (route 29), newest first: the first page, then "Load more" with
 * the previous answer's `nextCursor` passed back unchanged until there is none; and the "Export"
 * links (the export route, downloaded by the browser with the session cookie, streamed to disk).
 */
export class AuditLogPanel {
  private cursor: string | undefined;

  constructor(private readonly page: OrganizationContext) {}

  wire(): void {
    for (const format of ['ndjson', 'csv']) {
      byId<HTMLAnchorElement>(`audit-export-${format}`).href =
        `${this.page.org.path('audit-events', 'export')}?format=${format}`;
    }
    const more = byId<HTMLButtonElement>('audit-more');
    more.addEventListener('click', () =>
      runAction(more, async () => {
        const added = await this.load();
        announce(`Loaded ${added} older event(s).`);
        if (this.cursor === undefined) byId('audit-heading').focus();
      }),
    );
  }

  /** Starts again from the newest event. */
  async reload(): Promise<void> {
    this.cursor = undefined;
    byId('audit-body').replaceChildren();
    await this.load();
  }

  private async load(): Promise<number> {
    const query = this.cursor === undefined ? `limit=${PAGE_SIZE}` : `limit=${PAGE_SIZE}&cursor=${this.cursor}`;
    const { org } = this.page;
    const answer = await org.api.call<AuditPage>('GET', `${org.path('audit-events')}?${query}`);
    byId('audit-body').append(...answer.events.map((event) => auditEventRow(event, this.page.userId, this.page.names)));
    this.cursor = answer.nextCursor;
    show(byId('audit-more'), this.cursor !== undefined);
    show(byId('audit-end'), this.cursor === undefined);
    return answer.events.length;
  }
}

/**
 * One audit event as a table row: when, action, actor ("(you)" for `userId`), target, outcome
 * with its reason code, and the request. IDs the page knows a name for (`names`: members,
 * invitations, service identities it already read) show that name, the ID as its tooltip. Shared
 * by the audit log and the provisioning page. The event view itself stays as the server sent it.
 *
 * @example
 * byId('audit-body').append(...page.events.map((event) => auditEventRow(event, userId, names)));
 */
export function auditEventRow(
  event: AuditEventView,
  userId: string,
  names: ReadonlyMap<string, string> = new Map(),
): HTMLTableRowElement {
  const row = document.createElement('tr');
  row.dataset['eventId'] = event.id;
  const outcome = event.reasonCode === undefined ? event.outcome : `${event.outcome} (${event.reasonCode})`;
  row.append(
    tableCell(timeElement(event.occurredAt)),
    rowHeader(codeText(event.action)),
    tableCell(...actor(event, userId, names)),
    tableCell(...(event.target === undefined ? ['—'] : [`${event.target.type} `, named(event.target.id, names)])),
    tableCell(outcome),
    tableCell(...request(event)),
  );
  return row;
}

function actor(event: AuditEventView, userId: string, names: ReadonlyMap<string, string>): (Node | string)[] {
  const id = event.actor.userId ?? event.actor.serviceIdentityId;
  if (id === undefined) return [event.actor.type];
  const you = id === userId ? ' (you)' : '';
  const name = names.get(id);
  if (name !== undefined) return [`${event.actor.type} `, named(id, names), you];
  if (you !== '') return [`${event.actor.type}${you}`];
  return [`${event.actor.type} `, codeText(id, 'id')];
}

/** A known name (its ID as the tooltip), else the ID itself. */
function named(id: string, names: ReadonlyMap<string, string>): Node {
  const name = names.get(id);
  if (name === undefined) return codeText(id, 'id');
  const element = document.createElement('span');
  element.className = 'person-name';
  element.textContent = name;
  element.title = id;
  return element;
}

/** The request ID people quote (with the method; the full path is the cell's tooltip). */
function request(event: AuditEventView): (Node | string)[] {
  if (event.request === undefined) return ['—'];
  const method = document.createElement('span');
  method.className = 'request-line';
  method.textContent = event.request.method;
  method.title = `${event.request.method} ${event.request.path}`;
  return [codeText(event.request.requestId, 'id'), document.createElement('br'), method];
}
