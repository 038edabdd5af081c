import { invalidFilter } from '../scim.errors.js';

/**
 * One token of a SCIM filter: a bracket, a quoted JSON string (already unescaped), or a word (an
 * attribute path, an operator, a keyword or a bare value: any run of characters up to whitespace,
 * a bracket or a quote).
 */
export type ScimFilterToken =
  | { readonly kind: '(' | ')' | '[' | ']' }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'word'; readonly text: string };

const WHITESPACE = /[ \t\r\n]/;
const DELIMITERS = new Set(['(', ')', '[', ']', '"']);
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/**
 * Splits a filter into tokens. Quoted values follow JSON string rules (RFC 8259 §7); a control
 * character, an unknown escape, a lone surrogate or U+0000 (which PostgreSQL text cannot hold)
 * is an `invalidFilter`.
 *
 * @example
 * tokenizeScimFilter('emails[type eq "work"]'); // word, [, word, word, string, ]
 */
export function tokenizeScimFilter(text: string): ScimFilterToken[] {
  const tokens: ScimFilterToken[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (WHITESPACE.test(char)) {
      index += 1;
    } else if (char === '"') {
      const [value, end] = readString(text, index + 1);
      tokens.push({ kind: 'string', value });
      index = end;
    } else if (char === '(' || char === ')' || char === '[' || char === ']') {
      tokens.push({ kind: char });
      index += 1;
    } else {
      let end = index;
      while (end < text.length && !WHITESPACE.test(text[end]!) && !DELIMITERS.has(text[end]!)) end += 1;
      tokens.push({ kind: 'word', text: text.slice(index, end) });
      index = end;
    }
  }
  return tokens;
}

/** Reads a JSON string body starting after its opening quote; returns the value and the index after the closing quote. */
function readString(text: string, start: number): [string, number] {
  let value = '';
  let index = start;
  for (;;) {
    if (index >= text.length) throw invalidFilter();
    const char = text[index]!;
    if (char === '"') break;
    if (char.charCodeAt(0) < 0x20) throw invalidFilter();
    if (char !== '\\') {
      value += char;
      index += 1;
      continue;
    }
    const escape = text[index + 1];
    if (escape === 'u') {
      const hex = text.slice(index + 2, index + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw invalidFilter();
      value += String.fromCharCode(parseInt(hex, 16));
      index += 6;
    } else if (escape !== undefined && escape in ESCAPES) {
      value += ESCAPES[escape];
      index += 2;
    } else {
      throw invalidFilter();
    }
  }
  if (!isStorableText(value)) throw invalidFilter();
  return [value, index + 1];
}

/**
 * True when PostgreSQL can hold the text as sent: no U+0000 and no lone UTF-16 surrogate (a driver
 * would silently replace it, so the comparison would not be the one asked for).
 *
 * @example
 * isStorableText('a\u0000b'); // false
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !/\p{Cs}/u.test(value);
}
