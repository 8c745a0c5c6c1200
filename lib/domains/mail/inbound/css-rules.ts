/**
 * Just enough CSS to judge what a mail's style sheets hide (lib/domains/mail/inbound/hidden-text.ts):
 * declarations, and rules whose selectors are matched against the open elements. What cannot be
 * judged statically is over-approximated towards "applies" (structural pseudo-classes, sibling
 * combinators), except states a reader must act to reach (:hover, :focus...), which never apply.
 */

export type Declarations = Map<string, { value: string; important: boolean }>;

/** An element as a selector sees it. */
export type ElementView = { name: string; id: string; classes: string[]; attribs: Record<string, string> };

type Compound = { tag: string | null; id: string | null; classes: string[]; attrs: { name: string; op: string; value: string }[]; never: boolean };
/** Compounds left to right, and the combinator before each (after the first): " ", ">" or "any" (a sibling: not checked). */
type Selector = { parts: Compound[]; combinators: (" " | ">" | "any")[] };
export type CssRule = { selector: Selector; declarations: Declarations };

/** Rules by what their rightmost compound needs (an id, else a class, else a tag, else nothing), in sheet order. */
export type RuleIndex = { byId: Map<string, CssRule[]>; byClass: Map<string, CssRule[]>; byTag: Map<string, CssRule[]>; any: CssRule[]; order: Map<CssRule, number> };

export function indexRules(rules: CssRule[]): RuleIndex {
  const index: RuleIndex = { byId: new Map(), byClass: new Map(), byTag: new Map(), any: [], order: new Map() };
  const add = (m: Map<string, CssRule[]>, k: string, r: CssRule) => m.set(k, [...(m.get(k) ?? []), r]);
  rules.forEach((r, i) => {
    index.order.set(r, i);
    const last = r.selector.parts[r.selector.parts.length - 1]!;
    if (last.id) add(index.byId, last.id, r);
    else if (last.classes.length) add(index.byClass, last.classes[0]!, r);
    else if (last.tag) add(index.byTag, last.tag, r);
    else index.any.push(r);
  });
  return index;
}

/** The rules that may match an element (by its id, classes and tag), in sheet order. */
export function candidates(index: RuleIndex, e: ElementView): CssRule[] {
  const sources = [index.any, index.byTag.get(e.name), e.id ? index.byId.get(e.id) : undefined, ...e.classes.map((c) => index.byClass.get(c))].filter((x): x is CssRule[] => !!x?.length);
  if (sources.length <= 1) return sources[0] ?? [];
  return [...new Set(sources.flat())].sort((a, b) => index.order.get(a)! - index.order.get(b)!);
}

/** `a: b; c: d !important`: lower-cased properties, the last of each wins (an important one over a normal one). */
export function parseDeclarations(text: string): Declarations {
  const out: Declarations = new Map();
  for (const part of splitOutsideParens(text, ";")) {
    const colon = part.indexOf(":");
    if (colon < 0) continue;
    const prop = part.slice(0, colon).trim().toLowerCase();
    let value = part.slice(colon + 1).trim();
    const important = /!\s*important\s*$/i.test(value);
    if (important) value = value.replace(/!\s*important\s*$/i, "").trim();
    if (!prop || !value) continue;
    const before = out.get(prop);
    if (before?.important && !important) continue;
    out.set(prop, { value: value.toLowerCase(), important });
  }
  return out;
}

export function splitOutsideParens(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Pseudo-classes a reader must act to match: a rule behind one does not hide text from someone reading. */
const INTERACTIVE = /^:(hover|focus|focus-within|focus-visible|active|visited|link|any-link|target|checked|indeterminate|default|invalid|valid|user-invalid)$/;

function parseCompound(text: string): Compound | null {
  const c: Compound = { tag: null, id: null, classes: [], attrs: [], never: false };
  const re = /^(\*|[a-z][a-z0-9-]*)|\.(-?[_a-z][-_a-z0-9]*)|#(-?[-_a-z0-9]+)|\[\s*([-_a-z0-9:]+)\s*(?:([~|^$*]?=)\s*(?:"([^"]*)"|'([^']*)'|([^\]\s]+))\s*(?:i\s*)?)?\]|(::?[-a-z]+)(\((?:[^()]|\([^()]*\))*\))?/gy;
  let pos = 0;
  for (;;) {
    if (pos === text.length) return c;
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) return null;
    pos = re.lastIndex;
    if (m[1] && m[1] !== "*") c.tag = m[1];
    else if (m[2]) c.classes.push(m[2]);
    else if (m[3]) c.id = m[3];
    else if (m[4]) c.attrs.push({ name: m[4], op: m[5] ?? "", value: (m[6] ?? m[7] ?? m[8] ?? "").toLowerCase() });
    else if (m[9] && INTERACTIVE.test(m[9])) c.never = true;
    // Other pseudo-classes and pseudo-elements (:first-child, :not(), ::first-line...) are taken to match.
  }
}

function parseSelector(text: string): Selector | null {
  const tokens = text.trim().toLowerCase().replace(/\s*([>+~])\s*/g, " $1 ").split(/\s+/).filter(Boolean);
  const parts: Compound[] = [];
  const combinators: Selector["combinators"] = [];
  let next: " " | ">" | "any" = " ";
  for (const t of tokens) {
    if (t === ">") next = ">";
    else if (t === "+" || t === "~") next = "any";
    else {
      const c = parseCompound(t);
      if (!c) return null;
      if (parts.length) combinators.push(next);
      parts.push(c);
      next = " ";
    }
  }
  return parts.length ? { parts, combinators } : null;
}

/**
 * The rules of a style sheet, in order (`@media`, `@supports` and `@layer` blocks are read as if
 * they applied; other at-rules are skipped). At most `maxSelectors` selectors are kept.
 */
export function parseStyleSheet(css: string, maxSelectors = 300, relevant?: (property: string) => boolean): CssRule[] {
  const rules: CssRule[] = [];
  const text = css.replace(/\/\*[\s\S]*?(\*\/|$)/g, " ").replace(/<!--|-->/g, " ");
  const walk = (from: number, to: number) => {
    let i = from;
    while (i < to && rules.length < maxSelectors) {
      const open = text.indexOf("{", i);
      const semi = text.indexOf(";", i);
      if (open < 0 || open >= to) return;
      if (semi >= 0 && semi < open && text.slice(i, semi).trim().startsWith("@")) {
        i = semi + 1; // @import, @charset
        continue;
      }
      const prelude = text.slice(i, open).trim();
      let depth = 1;
      let j = open + 1;
      for (; j < to && depth > 0; j++) {
        if (text[j] === "{") depth++;
        else if (text[j] === "}") depth--;
      }
      const close = depth === 0 ? j - 1 : to;
      if (/^@(media|supports|layer|document|container)\b/i.test(prelude)) walk(open + 1, close);
      else if (!prelude.startsWith("@")) {
        const declarations = parseDeclarations(text.slice(open + 1, close));
        if (relevant) for (const p of [...declarations.keys()]) if (!relevant(p)) declarations.delete(p);
        for (const s of declarations.size ? splitOutsideParens(prelude, ",") : []) {
          const selector = parseSelector(s);
          if (selector && rules.length < maxSelectors) rules.push({ selector, declarations });
        }
      }
      i = close + 1;
    }
  };
  walk(0, text.length);
  return rules;
}

function matchesCompound(c: Compound, e: ElementView): boolean {
  if (c.never) return false;
  if (c.tag && c.tag !== e.name) return false;
  if (c.id && c.id !== e.id) return false;
  for (const k of c.classes) if (!e.classes.includes(k)) return false;
  for (const a of c.attrs) {
    const v = e.attribs[a.name];
    if (v === undefined) return false;
    const have = v.toLowerCase();
    if (a.op === "=" && have !== a.value) return false;
    if (a.op === "~=" && !have.split(/\s+/).includes(a.value)) return false;
    if (a.op === "^=" && !have.startsWith(a.value)) return false;
    if (a.op === "$=" && !have.endsWith(a.value)) return false;
    if (a.op === "*=" && !have.includes(a.value)) return false;
    if (a.op === "|=" && have !== a.value && !have.startsWith(`${a.value}-`)) return false;
  }
  return true;
}

/**
 * Whether `selector` matches the last element of `path` (the open elements, outermost first).
 * Greedy, right to left. Each step up the path spends one of `budget.steps`; once none are left,
 * only the rightmost compound is checked (its ancestors are taken to match): a crafted sheet
 * costs bounded work and errs towards hidden.
 */
export function matches(selector: Selector, path: ElementView[], budget: { steps: number }): boolean {
  const { parts, combinators } = selector;
  let at = path.length - 1;
  if (at < 0 || !matchesCompound(parts[parts.length - 1]!, path[at]!)) return false;
  if (budget.steps <= 0) return true;
  budget.steps -= path.length;
  for (let k = parts.length - 2; k >= 0; k--) {
    const how = combinators[k]!;
    if (how === "any") return true; // a sibling relation is not judged: taken to hold
    if (how === ">") {
      at--;
      if (at < 0 || !matchesCompound(parts[k]!, path[at]!)) return false;
    } else {
      do at--;
      while (at >= 0 && !matchesCompound(parts[k]!, path[at]!));
      if (at < 0) return false;
    }
  }
  return true;
}
