import type { Page } from 'playwright-core';
import { auditEvents, type AuditEvent } from './organization-audit.js';
import { onPasskeyCheck, openOrganization, ORGANIZATIONS, pastRecentPasskeyWindow } from './organization-pages.js';

/** This demo's recent-passkey window: short, so the journey reaches step-up without a 5-minute wait. */
const STEP_UP_WINDOW_SECONDS = 3;

/**
 * What the organization journey's steps hand on to later ones (IDs, the enrolment link, the owner's
 * last passkey check), and the paths and waits that follow from it.
 */
export class OrganizationJourney {
  ownerUserId = '';
  firstOrganizationId = '';
  /** `authenticatedAt` of the owner's last passkey check: "recent" for the window after it. */
  passkeyAt = 0;
  organizationId = '';
  link = '';
  memberUserId = '';

  /** `stepUpWindowSeconds`: the demo's recent-passkey window. */
  constructor(private readonly stepUpWindowSeconds = STEP_UP_WINDOW_SECONDS) {}

  /** Variables for the demo: its recent-passkey window. */
  demoEnv(): Record<string, string> {
    return { TESSERA_STEP_UP_WINDOW_SECONDS: String(this.stepUpWindowSeconds) };
  }

  /** Records every passkey sign-in or step-up on `page`: each starts a new recent-passkey window. */
  trackPasskeyChecks(page: Page): void {
    onPasskeyCheck(page, (authenticatedAt) => (this.passkeyAt = authenticatedAt));
  }

  /** The page of an organization, by default the one the journey created. */
  organizationPage(organizationId = this.organizationId): string {
    return `/identity/organizations/${organizationId}`;
  }

  /** An identity API path under the organization the journey created. */
  organizationApi(path = ''): string {
    return `${ORGANIZATIONS}/${this.organizationId}${path}`;
  }

  /** The audit-events path (route 29) of the organization the journey created. */
  auditPath(): string {
    return this.organizationApi('/audit-events');
  }

  /** The whole audit stream of the organization the journey created, newest first. */
  auditEvents(page: Page): Promise<AuditEvent[]> {
    return auditEvents(page, this.auditPath());
  }

  /** Waits until the owner's last passkey check is no longer recent, so the next sensitive call needs one. */
  pastRecentPasskeyWindow(page: Page): Promise<void> {
    return pastRecentPasskeyWindow(page, this.passkeyAt, this.stepUpWindowSeconds);
  }

  /** Opens an organization's page (by default the one the journey created) and waits for its `name` heading. */
  openOrganization(page: Page, name: string, organizationId = this.organizationId): Promise<void> {
    return openOrganization(page, this.organizationPage(organizationId), name);
  }
}
