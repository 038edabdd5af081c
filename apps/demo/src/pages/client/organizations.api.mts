import type { IdentityApi } from './api.mjs';
import { withStepUp } from './ceremonies.mjs';
import { announce } from './ui.mjs';

/** The four organization roles, most powerful first (identity-model §6.1). */
export const ROLES = ['owner', 'admin', 'publisher', 'viewer'] as const;

/** `OrganizationSummary` (identity-http §4.5): the organization with the caller's role in it. */
export interface OrganizationSummary {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly role: string;
}

/** `Organization` (identity-http §4.5). */
export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
  readonly state: string;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly deletedAt?: string;
}

/** `Membership` (identity-http §4.5). */
export interface Membership {
  readonly id: string;
  readonly organizationId: string;
  readonly userId: string;
  /** Who holds it (routes 26–28). */
  readonly user?: { readonly id: string; readonly displayName: string; readonly primaryEmail?: string };
  readonly role: string;
  readonly state: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** `InvitationView` (identity-http §4.5): never the token. */
export interface InvitationView {
  readonly id: string;
  readonly email: string;
  readonly role: string;
  readonly state: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly acceptedAt?: string;
  readonly revokedAt?: string;
}

/** `AuditEventView` (identity-model §8.1): the safe fields only. */
export interface AuditEventView {
  readonly id: string;
  readonly actor: { readonly type: string; readonly userId?: string; readonly serviceIdentityId?: string };
  readonly action: string;
  readonly target?: { readonly type: string; readonly id: string };
  readonly outcome: string;
  readonly reasonCode?: string;
  readonly request?: { readonly requestId: string; readonly method: string; readonly path: string };
  readonly occurredAt: string;
}

/** Route 29's page: `nextCursor` only when older events exist. */
export interface AuditPage {
  readonly events: readonly AuditEventView[];
  readonly nextCursor?: string;
}

/** `ServiceIdentity` (identity-http §4.5). */
export interface ServiceIdentity {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly capabilities: readonly string[];
  readonly state: string;
  readonly createdAt: string;
  readonly revokedAt?: string;
}

/** `CredentialView` (identity-http §4.5): the public prefix, never the secret. */
export interface CredentialView {
  readonly id: string;
  readonly serviceIdentityId: string;
  readonly publicPrefix: string;
  readonly capabilities: readonly string[];
  readonly state: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly lastUsedAt?: string;
  readonly rotatedAt?: string;
  readonly revokedAt?: string;
}

/**
 * The organization-scoped identity routes (21–45) for one organization, named only by the ID in
 * the page's URL: the server keeps no "current organization". Changes go through {@link change},
 * which confirms with a passkey when the server answers 403 `step_up_required` and retries once.
 *
 * @example
 * const org = new OrganizationApi(api, organizationId);
 * const members = await org.read<Membership[]>('memberships');
 */
export class OrganizationApi {
  constructor(
    readonly api: IdentityApi,
    readonly organizationId: string,
  ) {}

  /** `/identity/v1/organizations/{orgId}[/segment…]`, each segment URL-encoded. */
  path(...segments: string[]): string {
    const base = this.api.route('organizations', this.organizationId);
    return segments.length === 0 ? base : `${base}/${segments.map(encodeURIComponent).join('/')}`;
  }

  read<T>(...segments: string[]): Promise<T> {
    return this.api.call<T>('GET', this.path(...segments));
  }

  change<T>(method: 'POST' | 'PATCH' | 'DELETE', segments: readonly string[], body?: unknown): Promise<T> {
    return confirmingWithPasskey(this.api, () => this.api.call<T>(method, this.path(...segments), body));
  }
}

/** Runs a sensitive call; on 403 `step_up_required` asks for the passkey, then runs it once more. */
export function confirmingWithPasskey<T>(api: IdentityApi, action: () => Promise<T>): Promise<T> {
  return withStepUp(api, action, () => announce('This needs a recent passkey check: confirm it’s you…'));
}

/** Capability names typed by a person: separated by spaces, commas or new lines, duplicates dropped. */
export function parseCapabilities(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((name) => name !== ''))];
}

/** An optional lifetime in days (the form allows 1–90) as the routes' `lifetimeSeconds`; blank → the default. */
export function lifetimeFromDays(text: string | undefined): { lifetimeSeconds?: number } {
  if (text === undefined || text.trim() === '') return {};
  return { lifetimeSeconds: Math.round(Number(text) * 86_400) };
}

/** What the organization page gives each of its panels. */
export interface OrganizationContext {
  readonly org: OrganizationApi;
  /** The signed-in user, to mark "you" in lists. */
  readonly userId: string;
  /** Owner or admin: the page shows management controls (the server decides regardless). */
  readonly manager: boolean;
  /**
   * Names for IDs the page already read (members and their memberships, invitations, service
   * identities): the audit log shows them instead of UUIDs. Filled by the panels as they load.
   */
  readonly names: Map<string, string>;
  /**
   * Called after every successful change: the audit log reloads its first page. `false` when the
   * change ended this user's session (a membership change revokes the target's sessions).
   */
  changed(): Promise<boolean>;
}
