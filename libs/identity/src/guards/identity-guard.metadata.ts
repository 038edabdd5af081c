import type { OrganizationRole } from '../store/identity-records.js';

/** Metadata key of the identity requirements on a handler or class. */
export const IDENTITY_REQUIREMENTS: unique symbol = Symbol('tessera.identity.requirements');

/** One requirement a decorator records. */
export type IdentityRequirement =
  | { readonly kind: 'identity' }
  | { readonly kind: 'recovery_enrollment' }
  | { readonly kind: 'organization'; readonly expectedId?: string }
  | { readonly kind: 'role'; readonly roles: readonly OrganizationRole[] }
  | { readonly kind: 'capability'; readonly capability: string }
  | { readonly kind: 'recent_passkey'; readonly maxAgeSeconds?: number };
