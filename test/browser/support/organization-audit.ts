import { expect } from '@jest/globals';
import type { Locator, Page } from 'playwright-core';
import { expectSuccess, waitForApi } from './identity-pages.js';

/** One audit event as route 29 lists it. */
export interface AuditEvent {
  id: string;
  action: string;
  occurredAt: string;
}

/** The organization's whole audit stream from route 29 (one page of 100), newest first. */
export async function auditEvents(page: Page, auditPath: string): Promise<AuditEvent[]> {
  const response = await page.request.get(`${auditPath}?limit=100`);
  expect(response.status()).toBe(200);
  const body = (await response.json()) as { events: AuditEvent[]; nextCursor?: string };
  expect(body.nextCursor).toBeUndefined();
  return body.events;
}

/** Checks that every action of `actions` is among the `events`. */
export function expectAuditActions(events: readonly AuditEvent[], actions: readonly string[]): void {
  const recorded = events.map((event) => event.action);
  for (const action of actions) expect(recorded).toContain(action);
}

/**
 * Checks the audit stream once an invitation was accepted: the organization's creation, the
 * membership, and the invitation created and accepted are there, in order, newest first.
 */
export function expectInvitationAudited(events: readonly AuditEvent[]): void {
  expectAuditActions(events, [
    'invitation.created',
    'invitation.accepted',
    'membership.created',
    'organization.created',
  ]);
  const actions = events.map((event) => event.action);
  expect(actions.indexOf('invitation.accepted')).toBeLessThan(actions.indexOf('invitation.created'));
  expect(actions.indexOf('invitation.created')).toBeLessThan(actions.indexOf('organization.created'));
  const times = events.map((event) => Date.parse(event.occurredAt));
  expect(times).toEqual([...times].sort((a, b) => b - a));
}

/**
 * Reloads the organization page and checks the audit table's first page: ten events, a
 * `nextCursor`, and the `Load more` button, which it returns with that page.
 */
export async function reloadFirstAuditPage(
  page: Page,
  auditPath: string,
): Promise<{ first: { events: AuditEvent[]; nextCursor?: string }; more: Locator }> {
  const firstPage = waitForApi(page, 'GET', auditPath);
  await page.reload();
  const first = (await (await firstPage).json()) as { events: AuditEvent[]; nextCursor?: string };
  expect(first.events).toHaveLength(10);
  expect(first.nextCursor).toBeDefined();
  const more = page.getByRole('button', { name: 'Load more' });
  await expectSuccess(page, more);
  return { first, more };
}

/** Clicks `Load more` (`more`): the page asks for the next page with `cursor`, then has shown every event. */
export async function loadMoreAudit(page: Page, auditPath: string, more: Locator, cursor?: string): Promise<void> {
  const nextPage = waitForApi(page, 'GET', auditPath);
  await more.click();
  const next = await nextPage;
  expect(new URL(next.url()).searchParams.get('cursor')).toBe(cursor);
  await expectSuccess(page, page.getByText('That is every event.'));
}

/** Checks the audit table shows a row of each of `actions`, no `Load more`, and that it holds every event. */
export async function expectEveryEventShown(page: Page, actions: readonly string[]): Promise<void> {
  for (const action of actions)
    await expectSuccess(page, page.locator('#audit-body tr').filter({ hasText: action }).first());
  expect(await page.getByRole('button', { name: 'Load more' }).isVisible()).toBe(false);
  await expectSuccess(page, page.getByText('That is every event.'));
}

/** Event IDs of the audit table's rows, top to bottom. */
export function shownEventIds(page: Page): Promise<string[]> {
  return page
    .locator('#audit-body tr')
    .evaluateAll((rows) => rows.map((row) => (row as any).dataset.eventId as string));
}

/**
 * Clicks the audit log's "NDJSON" export link: the browser downloads the export with the session
 * cookie; returns the suggested file name and the events and trailer of the downloaded file.
 */
export async function downloadAuditExport(
  page: Page,
): Promise<{ filename: string; ids: string[]; trailer: { cursor: string | null; complete: boolean } }> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'NDJSON' }).click(),
  ]);
  const stream = await download.createReadStream();
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  const lines = text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { id?: string; trailer?: { cursor: string | null; complete: boolean } });
  const trailer = lines.pop()?.trailer;
  if (trailer === undefined) throw new Error('the downloaded export has no trailer');
  return { filename: download.suggestedFilename(), ids: lines.map((line) => line.id!), trailer };
}
