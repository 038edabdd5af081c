import { decodeBody } from '../http/request-fields.js';
import { isCapabilityName } from '../organizations/capabilities.js';
import { MAX_SERVICE_SCOPES } from './service-scopes.js';

/** The longest lifetime a request may ever ask for: 90 days (identity-http §4.2). */
export const MAX_SERVICE_CREDENTIAL_LIFETIME_SECONDS = 7_776_000;

/** Route 40's body. */
export interface ServiceIdentityBody {
  readonly name: string;
  readonly description?: string;
  readonly capabilities: string[];
  readonly lifetimeSeconds?: number;
}

/** Route 43's body. */
export interface ServiceCredentialBody {
  readonly capabilities: string[];
  readonly lifetimeSeconds?: number;
}

/** Route 44's body. */
export interface ServiceCredentialRotationBody {
  readonly lifetimeSeconds?: number;
}

const TEXT_FIELDS = {
  name: { kind: 'text', min: 1, max: 200 },
  description: { kind: 'text', min: 0, max: 2000, optional: true },
} as const;

/** A plain JSON object whose keys are all among `allowed`, else `undefined`. */
function objectWith(value: unknown, allowed: readonly string[]): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  return Object.keys(record).every((key) => allowed.includes(key)) ? record : undefined;
}

/** `capabilities`: a non-empty array (≤ 64) of distinct capability names; `undefined` otherwise. */
function capabilitiesOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SERVICE_SCOPES) return undefined;
  if (!value.every((item): item is string => typeof item === 'string' && isCapabilityName(item))) return undefined;
  return new Set(value).size === value.length ? [...value] : undefined;
}

/**
 * `lifetimeSeconds`: absent, or an integer > 0 and ≤ min(90 days, `maxSeconds`). `null` when
 * present but invalid.
 */
function lifetimeOf(record: Record<string, unknown>, maxSeconds: number): number | undefined | null {
  if (!Object.hasOwn(record, 'lifetimeSeconds')) return undefined;
  const value = record['lifetimeSeconds'];
  const max = Math.min(MAX_SERVICE_CREDENTIAL_LIFETIME_SECONDS, maxSeconds);
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= max ? value : null;
}

/**
 * Stage 9 of route 40: `{name, description?, capabilities, lifetimeSeconds?}` with the rules of
 * identity-http §4.2 (name 1..200, description ≤ 2000, capabilities as {@link capabilitiesOf},
 * lifetime ≤ min(90 d, `maxLifetimeSeconds`)); `undefined` for any violation or unknown key.
 *
 * @example
 * const body = decodeServiceIdentityBody(json, config.lifetimes.serviceCredentialMaxSeconds);
 */
export function decodeServiceIdentityBody(value: unknown, maxLifetimeSeconds: number): ServiceIdentityBody | undefined {
  const record = objectWith(value, ['name', 'description', 'capabilities', 'lifetimeSeconds']);
  if (record === undefined) return undefined;
  const text = Object.fromEntries(Object.entries(record).filter(([key]) => Object.hasOwn(TEXT_FIELDS, key)));
  const fields = decodeBody(text, TEXT_FIELDS);
  const capabilities = capabilitiesOf(record['capabilities']);
  const lifetimeSeconds = lifetimeOf(record, maxLifetimeSeconds);
  if (fields === undefined || capabilities === undefined || lifetimeSeconds === null) return undefined;
  return {
    name: fields.name,
    ...(fields.description === undefined ? {} : { description: fields.description }),
    capabilities,
    ...(lifetimeSeconds === undefined ? {} : { lifetimeSeconds }),
  };
}

/**
 * Stage 9 of route 43: `{capabilities, lifetimeSeconds?}`.
 *
 * @example
 * const body = decodeServiceCredentialBody(json, config.lifetimes.serviceCredentialMaxSeconds);
 */
export function decodeServiceCredentialBody(
  value: unknown,
  maxLifetimeSeconds: number,
): ServiceCredentialBody | undefined {
  const record = objectWith(value, ['capabilities', 'lifetimeSeconds']);
  if (record === undefined) return undefined;
  const capabilities = capabilitiesOf(record['capabilities']);
  const lifetimeSeconds = lifetimeOf(record, maxLifetimeSeconds);
  if (capabilities === undefined || lifetimeSeconds === null) return undefined;
  return { capabilities, ...(lifetimeSeconds === undefined ? {} : { lifetimeSeconds }) };
}

/**
 * Stage 9 of route 44: `{lifetimeSeconds?}` (an empty object rotates with the default lifetime).
 *
 * @example
 * const body = decodeServiceCredentialRotationBody(json, config.lifetimes.serviceCredentialMaxSeconds);
 */
export function decodeServiceCredentialRotationBody(
  value: unknown,
  maxLifetimeSeconds: number,
): ServiceCredentialRotationBody | undefined {
  const record = objectWith(value, ['lifetimeSeconds']);
  if (record === undefined) return undefined;
  const lifetimeSeconds = lifetimeOf(record, maxLifetimeSeconds);
  if (lifetimeSeconds === null) return undefined;
  return lifetimeSeconds === undefined ? {} : { lifetimeSeconds };
}
