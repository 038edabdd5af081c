/**
 * A strict JSON parser for identity request bodies (identity-http §1): RFC 8259 grammar, no
 * duplicate object keys (which `JSON.parse` silently accepts, last one winning), bounded nesting.
 * Returns `undefined` for any violation; the caller answers 400 `request_invalid` without echoing.
 */

/** Deepest nesting of objects/arrays accepted. */
export const MAX_JSON_DEPTH = 32;

export function parseStrictJson(text: string): unknown {
  const parser = new StrictJsonParser(text);
  try {
    parser.skipWhitespace();
    const value = parser.value(0);
    parser.skipWhitespace();
    return parser.atEnd() ? value : undefined;
  } catch (error) {
    if (error instanceof JsonSyntaxError) return undefined;
    throw error;
  }
}

class JsonSyntaxError extends Error {}

/** Escapes of one string body, validated by the platform parser on the exact quoted slice. */
function decodeEscapes(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    throw new JsonSyntaxError();
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

class StrictJsonParser {
  private pos = 0;
  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.pos === this.text.length;
  }

  skipWhitespace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      this.pos++;
    }
  }

  value(depth: number): unknown {
    const c = this.text[this.pos];
    if ((c === '{' || c === '[') && depth >= MAX_JSON_DEPTH) throw new JsonSyntaxError();
    if (c === '{') return this.object(depth + 1);
    if (c === '[') return this.array(depth + 1);
    if (c === '"') return this.string();
    if (this.text.startsWith('true', this.pos)) return this.literal(4, true);
    if (this.text.startsWith('false', this.pos)) return this.literal(5, false);
    if (this.text.startsWith('null', this.pos)) return this.literal(4, null);
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null || match[0].length === 0) throw new JsonSyntaxError();
    this.pos += match[0].length;
    return Number(match[0]);
  }

  private literal<T>(length: number, value: T): T {
    this.pos += length;
    return value;
  }

  private object(depth: number): Record<string, unknown> {
    this.pos++;
    const result: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    const seen = new Set<string>();
    this.skipWhitespace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return result;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') throw new JsonSyntaxError();
      const key = this.string();
      if (seen.has(key)) throw new JsonSyntaxError();
      seen.add(key);
      this.skipWhitespace();
      if (this.text[this.pos] !== ':') throw new JsonSyntaxError();
      this.pos++;
      this.skipWhitespace();
      result[key] = this.value(depth);
      this.skipWhitespace();
      const next = this.text[this.pos++];
      if (next === '}') return result;
      if (next !== ',') throw new JsonSyntaxError();
    }
  }

  private array(depth: number): unknown[] {
    this.pos++;
    const result: unknown[] = [];
    this.skipWhitespace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return result;
    }
    for (;;) {
      this.skipWhitespace();
      result.push(this.value(depth));
      this.skipWhitespace();
      const next = this.text[this.pos++];
      if (next === ']') return result;
      if (next !== ',') throw new JsonSyntaxError();
    }
  }

  private string(): string {
    const start = ++this.pos;
    const t = this.text;
    let hasEscape = false;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x22) {
        const raw = t.slice(start, this.pos++);
        const value = hasEscape ? decodeEscapes(raw) : raw;
        // Escapes can spell lone surrogates (`\ud800`), which are not text.
        if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) throw new JsonSyntaxError();
        return value;
      }
      if (c < 0x20) throw new JsonSyntaxError();
      if (c === 0x5c) {
        hasEscape = true;
        this.pos += 2;
        continue;
      }
      this.pos++;
    }
    throw new JsonSyntaxError();
  }
}
