/**
 * Structural limits of the SAML pre-parse guard (identity-http §6, issue 14).
 *
 * @example
 * guardSamlXml(xml, { ...SAML_XML_LIMITS, allowComments: true });
 */
export interface SamlXmlLimits {
  /**
   * Largest document, in UTF-16 characters.
   *
   * @default 4 MiB (4 194 304)
   */
  readonly maxChars: number;
  /**
   * Deepest element nesting (the root is depth 1).
   *
   * @default 25
   */
  readonly maxDepth: number;
  /**
   * Most attributes (namespace declarations included) on one element.
   *
   * @default 30
   */
  readonly maxAttributesPerElement: number;
  /**
   * Most elements in the document.
   *
   * @default 2048
   */
  readonly maxElements: number;
  /**
   * Whether comments are tolerated. Never for protocol messages (a comment splits a signed text
   * node: NameID comment injection); metadata pasted by an administrator may carry them.
   *
   * @default false
   */
  readonly allowComments?: boolean;
}

/**
 * The limits every SAML protocol message must satisfy: 4 MiB characters, depth 25, 30 attributes
 * per element, 2048 elements, no comments.
 *
 * @example
 * const verdict = guardSamlXml(xml, SAML_XML_LIMITS);
 */
export const SAML_XML_LIMITS: SamlXmlLimits = Object.freeze({
  maxChars: 4 * 1024 * 1024,
  maxDepth: 25,
  maxAttributesPerElement: 30,
  maxElements: 2048,
  allowComments: false,
});

/** The guard's verdict: `check` names the first violated rule (never document content). */
export type SamlXmlGuardResult = { readonly ok: true } | { readonly ok: false; readonly check: string };

// Characters XML 1.0 forbids outright (§2.2); a parser would otherwise guess.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const XML_DECLARATION =
  /^<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(["'])1\.0\1([ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(["'])utf-8\3)?([ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(["'])(yes|no)\5)?[ \t\r\n]*\?>/i;
const REFERENCE = /^&(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});/;
const NAME_END = /[ \t\r\n/>=]/;
const WHITESPACE = /^[ \t\r\n]*$/;
const ID_ATTRIBUTE_LOCAL_NAMES = new Set(['ID', 'Id', 'id']);
const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

class GuardViolation extends Error {
  constructor(readonly check: string) {
    super(check);
  }
}

/**
 * The pre-parse guard: a lexical pass over the raw document BEFORE any XML library sees it.
 * Refuses DTDs (`<!DOCTYPE`: XXE, billion laughs), `<!ENTITY` and every other markup declaration,
 * entity references other than the five predefined ones and character references, processing
 * instructions (a leading UTF-8 XML declaration excepted), comments (unless
 * {@link SamlXmlLimits.allowComments}), CDATA sections, characters XML forbids, duplicate `ID`/`Id`/`id`
 * values (any prefix: xml-crypto resolves references by local name), unbalanced or trailing markup,
 * and documents over the size, depth, attribute or element limits.
 *
 * @example
 * const verdict = guardSamlXml(xml);
 * if (!verdict.ok) throw new FederationProtocolError('token_invalid', verdict.check);
 */
export function guardSamlXml(xml: string, limits: SamlXmlLimits = SAML_XML_LIMITS): SamlXmlGuardResult {
  if (xml.length > limits.maxChars) return { ok: false, check: 'xml_too_large' };
  try {
    new XmlGuardScanner(xml, limits).scan();
    return { ok: true };
  } catch (error) {
    if (error instanceof GuardViolation) return { ok: false, check: error.check };
    throw error;
  }
}

class XmlGuardScanner {
  private position = 0;
  private elements = 0;
  private roots = 0;
  private readonly open: string[] = [];
  private readonly ids = new Set<string>();

  constructor(
    private readonly xml: string,
    private readonly limits: SamlXmlLimits,
  ) {}

  scan(): void {
    if (FORBIDDEN_CHARACTER.test(this.xml)) throw new GuardViolation('xml_invalid_character');
    if (this.xml.startsWith('<?xml')) {
      const declaration = XML_DECLARATION.exec(this.xml);
      if (declaration === null) throw new GuardViolation('xml_declaration_invalid');
      this.position = declaration[0].length;
    }
    while (this.position < this.xml.length) {
      const next = this.xml.indexOf('<', this.position);
      const textEnd = next === -1 ? this.xml.length : next;
      this.text(this.position, textEnd);
      if (next === -1) break;
      this.markup(next);
    }
    if (this.open.length !== 0 || this.roots !== 1) throw new GuardViolation('xml_malformed');
  }

  private text(start: number, end: number): void {
    if (start === end) return;
    const text = this.xml.slice(start, end);
    if (this.open.length === 0 && !WHITESPACE.test(text)) throw new GuardViolation('xml_malformed');
    this.references(text);
  }

  /** Every `&` must start a predefined entity or a character reference. */
  private references(text: string): void {
    for (let at = text.indexOf('&'); at !== -1; at = text.indexOf('&', at + 1)) {
      const reference = REFERENCE.exec(text.slice(at, at + 12));
      if (reference === null) throw new GuardViolation('entity_reference_not_allowed');
      const code = characterReference(reference[0]);
      if (code !== null && !isXmlCharacter(code)) throw new GuardViolation('xml_invalid_character');
    }
  }

  private markup(start: number): void {
    const rest = this.xml.slice(start, start + 10);
    if (rest.startsWith('<!--')) {
      if (this.limits.allowComments !== true) throw new GuardViolation('comment_not_allowed');
      const end = this.xml.indexOf('-->', start + 4);
      if (end === -1) throw new GuardViolation('xml_malformed');
      this.position = end + 3;
      return;
    }
    if (rest.startsWith('<![CDATA[')) throw new GuardViolation('cdata_not_allowed');
    if (rest.toUpperCase().startsWith('<!DOCTYPE')) throw new GuardViolation('dtd_not_allowed');
    if (rest.toUpperCase().startsWith('<!ENTITY')) throw new GuardViolation('entity_not_allowed');
    if (rest.startsWith('<!')) throw new GuardViolation('markup_declaration_not_allowed');
    if (rest.startsWith('<?')) throw new GuardViolation('processing_instruction_not_allowed');
    if (rest.startsWith('</')) this.endTag(start);
    else this.startTag(start);
  }

  private endTag(start: number): void {
    const end = this.xml.indexOf('>', start);
    if (end === -1) throw new GuardViolation('xml_malformed');
    const name = this.xml.slice(start + 2, end).trimEnd();
    if (this.open.pop() !== name) throw new GuardViolation('xml_malformed');
    this.position = end + 1;
  }

  private startTag(start: number): void {
    let at = start + 1;
    const name = this.name(at);
    at += name.length;
    if (this.open.length === 0) this.roots += 1;
    this.elements += 1;
    if (this.elements > this.limits.maxElements) throw new GuardViolation('xml_too_many_elements');
    if (this.open.length + 1 > this.limits.maxDepth) throw new GuardViolation('xml_too_deep');
    const seen = new Set<string>();
    for (;;) {
      const afterSpace = this.skipWhitespace(at);
      const char = this.xml[afterSpace];
      if (char === undefined) throw new GuardViolation('xml_malformed');
      if (char === '>' || (char === '/' && this.xml[afterSpace + 1] === '>')) {
        if (char === '>') this.open.push(name);
        this.position = afterSpace + (char === '>' ? 1 : 2);
        return;
      }
      if (afterSpace === at) throw new GuardViolation('xml_malformed');
      at = this.attribute(afterSpace, seen);
      if (seen.size > this.limits.maxAttributesPerElement) throw new GuardViolation('xml_too_many_attributes');
    }
  }

  private attribute(start: number, seen: Set<string>): number {
    const name = this.name(start);
    if (seen.has(name)) throw new GuardViolation('xml_malformed');
    seen.add(name);
    let at = this.skipWhitespace(start + name.length);
    if (this.xml[at] !== '=') throw new GuardViolation('xml_malformed');
    at = this.skipWhitespace(at + 1);
    const quote = this.xml[at];
    if (quote !== '"' && quote !== "'") throw new GuardViolation('xml_malformed');
    const end = this.xml.indexOf(quote, at + 1);
    if (end === -1) throw new GuardViolation('xml_malformed');
    const raw = this.xml.slice(at + 1, end);
    if (raw.includes('<')) throw new GuardViolation('xml_malformed');
    this.references(raw);
    const localName = name.slice(name.indexOf(':') + 1);
    if (ID_ATTRIBUTE_LOCAL_NAMES.has(localName)) {
      const value = attributeValue(raw);
      if (this.ids.has(value)) throw new GuardViolation('duplicate_id');
      this.ids.add(value);
    }
    return end + 1;
  }

  private name(start: number): string {
    let end = start;
    while (end < this.xml.length && !NAME_END.test(this.xml[end] as string)) end += 1;
    if (end === start) throw new GuardViolation('xml_malformed');
    return this.xml.slice(start, end);
  }

  private skipWhitespace(start: number): number {
    let at = start;
    while (at < this.xml.length && ' \t\r\n'.includes(this.xml[at] as string)) at += 1;
    return at;
  }
}

/** The value an XML processor reports (XML 1.0 §3.3.3: literal whitespace → space, then references). */
function attributeValue(raw: string): string {
  return raw.replace(/[\t\r\n]/g, ' ').replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (match, name: string) => {
    const code = characterReference(match);
    return code === null ? (PREDEFINED[name] ?? '') : String.fromCodePoint(code);
  });
}

/** The code point of a character reference (`&#…;`), `null` for a predefined entity. */
function characterReference(reference: string): number | null {
  if (reference.startsWith('&#x')) return Number.parseInt(reference.slice(3, -1), 16);
  if (reference.startsWith('&#')) return Number.parseInt(reference.slice(2, -1), 10);
  return null;
}

/** XML 1.0 §2.2 `Char`. */
function isXmlCharacter(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}
