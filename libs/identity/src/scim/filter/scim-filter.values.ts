import { invalidFilter } from '../scim.errors.js';
import type { ScimAttributeDescriptor } from './scim-attributes.js';
import type { ScimComparator, ScimFilterValue } from './scim-filter.ast.js';

/** A comparison value as written: quoted, or a bare word (lenient: taken as a string unless a literal). */
export type ScimRawValue =
  | { readonly kind: 'string'; readonly text: string }
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'null' };

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * Classifies a bare (unquoted) value: `true`/`false`/`null` (any case) and JSON numbers are
 * literals, anything else is a string (`userName sw O`, `meta.created gt 2015-10-10T14:38:21Z`).
 *
 * @example
 * bareScimValue('Employee'); // { kind: 'string', text: 'Employee' }
 */
export function bareScimValue(word: string): ScimRawValue {
  const lower = word.toLowerCase();
  if (lower === 'true' || lower === 'false') return { kind: 'boolean', value: lower === 'true' };
  if (lower === 'null') return { kind: 'null' };
  if (JSON_NUMBER.test(word)) return { kind: 'number', text: word };
  return { kind: 'string', text: word };
}

/**
 * Coerces a written value to the attribute's type and checks the operator fits it: booleans take
 * only `eq`/`ne` (`"True"`/`"False"` strings accepted), dateTimes must parse and take no
 * substring operator, `null` only with `eq`/`ne`, numbers compare with strings as written.
 *
 * @example
 * coerceScimValue({ type: 'boolean', caseExact: false }, 'eq', { kind: 'string', text: 'True' }); // true
 */
export function coerceScimValue(
  descriptor: ScimAttributeDescriptor,
  op: ScimComparator,
  raw: ScimRawValue,
): ScimFilterValue {
  if (raw.kind === 'null') {
    if (op !== 'eq' && op !== 'ne') throw invalidFilter();
    return null;
  }
  switch (descriptor.type) {
    case 'boolean': {
      if (op !== 'eq' && op !== 'ne') throw invalidFilter();
      if (raw.kind === 'boolean') return raw.value;
      const lower = raw.kind === 'string' ? raw.text.toLowerCase() : '';
      if (lower === 'true' || lower === 'false') return lower === 'true';
      throw invalidFilter();
    }
    case 'dateTime': {
      if (op === 'co' || op === 'sw' || op === 'ew' || raw.kind !== 'string') throw invalidFilter();
      return parseScimDateTime(raw.text);
    }
    case 'string':
    case 'reference': {
      if (raw.kind === 'boolean') throw invalidFilter();
      return raw.text;
    }
    default:
      throw invalidFilter();
  }
}

/**
 * Parses an RFC 3339 / xsd:dateTime instant (`2015-10-10T14:38:21.8617979-07:00`; a missing zone
 * is UTC, a date alone is midnight UTC; fractions beyond milliseconds are truncated).
 *
 * @example
 * parseScimDateTime('2015-10-10T14:38:21.8617979-07:00').toISOString(); // '2015-10-10T21:38:21.861Z'
 */
export function parseScimDateTime(text: string): Date {
  const match = DATE_TIME.exec(text);
  if (!match) throw invalidFilter();
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', zone = 'Z'] = match;
  const days = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate();
  const zoneHours = zone.length > 1 ? Number(zone.slice(1, 3)) : 0;
  const zoneMinutes = zone.length > 1 ? Number(zone.slice(-2)) : 0;
  if (
    Number(month) < 1 ||
    Number(month) > 12 ||
    Number(day) < 1 ||
    Number(day) > days ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 59 ||
    zoneHours > 23 ||
    zoneMinutes > 59
  ) {
    throw invalidFilter();
  }
  const millis = `${fraction}000`.slice(0, 3);
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const instant = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}.${millis}${offset}`);
  if (Number.isNaN(instant.getTime())) throw invalidFilter();
  return instant;
}
