import { NAMED_COLORS } from "./css-named-colors";
import { candidates, indexRules, matches, parseDeclarations, parseStyleSheet, splitOutsideParens, type CssRule, type Declarations, type ElementView, type RuleIndex } from "./css-rules";

/**
 * Judges, element by element as a parser opens and closes them, what CSS and HTML hide from a
 * person reading the mail (#30 item 8), from the inline styles, the presentational attributes and
 * the mail's own style sheets. Two kinds:
 * - a hidden subtree, which nothing inside can show again: display:none, the hidden attribute,
 *   opacity (multiplied down the tree) of 0.1 or less, a scale or zoom near 0, an offset of a
 *   thousand pixels or more off the page, a clip or clip-path to nothing, a box of 1px or less that
 *   hides its overflow, width=0 height=0, content-visibility:hidden, mso-hide:all;
 * - hidden text, which a child may show again: visibility:hidden, a font under 3px, and a colour
 *   (or text fill) that is transparent or too close to the background behind it (contrast under
 *   1.5:1; a background image with no colour of its own is not judged).
 * What cannot be judged statically errs towards hidden (see css-rules.ts).
 */

type Rgba = { r: number; g: number; b: number; a: number };
const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };
const BLACK: Rgba = { r: 0, g: 0, b: 0, a: 1 };

const num = (s: string) => (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s.trim()) ? Number(s) : NaN);
const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

function channel(s: string, max: number): number {
  const t = s.trim();
  return t.endsWith("%") ? (num(t.slice(0, -1)) / 100) * max : num(t);
}

function alpha(s: string | undefined): number {
  if (s === undefined) return 1;
  const t = s.trim();
  return clamp(t.endsWith("%") ? num(t.slice(0, -1)) / 100 : num(t), 0, 1);
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return 255 * (l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1)));
  };
  return [f(0), f(8), f(4)];
}

/** A CSS colour, or null when it is not one this reads (then it is not judged). */
export function parseColor(value: string): Rgba | null {
  const v = value.trim().toLowerCase();
  if (v === "transparent") return { r: 0, g: 0, b: 0, a: 0 };
  const named = NAMED_COLORS[v];
  if (named !== undefined) return { r: named >> 16, g: (named >> 8) & 255, b: named & 255, a: 1 };
  const hex = /^#?([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(v);
  if (hex && (v.startsWith("#") || value.length === 6)) {
    let h = hex[1]!;
    if (h.length <= 4) h = [...h].map((c) => c + c).join("");
    return { r: parseInt(h.slice(0, 2), 16), g: parseInt(h.slice(2, 4), 16), b: parseInt(h.slice(4, 6), 16), a: h.length === 8 ? parseInt(h.slice(6, 8), 16) / 255 : 1 };
  }
  const fn = /^(rgba?|hsla?)\(([^)]*)\)$/.exec(v);
  if (!fn) return null;
  const [body, slashAlpha] = fn[2]!.split("/");
  const args = body!.split(/[\s,]+/).filter(Boolean);
  if (args.length < 3) return null;
  const a = alpha(slashAlpha ?? args[3]);
  if (fn[1]!.startsWith("rgb")) {
    const [r, g, b] = args.slice(0, 3).map((x) => clamp(channel(x, 255), 0, 255));
    return [r, g, b, a].some(Number.isNaN) ? null : { r: r!, g: g!, b: b!, a };
  }
  const h = num(args[0]!.replace(/deg$/, ""));
  const s = clamp(channel(args[1]!, 1), 0, 1);
  const l = clamp(channel(args[2]!, 1), 0, 1);
  if ([h, s, l, a].some(Number.isNaN)) return null;
  const [r, g, b] = hslToRgb(((h % 360) + 360) % 360, s, l);
  return { r, g, b, a };
}

/** `top` over `under` (under is opaque). */
const over = (top: Rgba, under: Rgba): Rgba => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1 });

function luminance(c: Rgba): number {
  const lin = (x: number) => {
    const s = x / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/** WCAG contrast ratio, 1 (none) to 21. */
export function contrast(a: Rgba, b: Rgba): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x! + 0.05) / (y! + 0.05);
}

const FONT_KEYWORDS: Record<string, number> = { "xx-small": 9, "x-small": 10, small: 13, medium: 16, large: 18, "x-large": 24, "xx-large": 32, "xxx-large": 48 };

/** A length in px (`em` and `%` relative to `emPx`), or null when it cannot be told (calc, viewport units, auto). */
export function toPx(value: string, emPx: number): number | null {
  const m = /^([-+]?(?:\d+\.?\d*|\.\d+))(px|pt|pc|in|cm|mm|q|em|rem|%|ex|ch)?$/.exec(value.trim());
  if (!m) return null;
  const n = Number(m[1]);
  const unit = m[2] ?? (n === 0 ? "px" : "");
  const per: Record<string, number> = { px: 1, pt: 4 / 3, pc: 16, in: 96, cm: 96 / 2.54, mm: 96 / 25.4, q: 96 / 101.6, em: emPx, rem: 16, "%": emPx / 100, ex: emPx / 2, ch: emPx / 2 };
  return per[unit] === undefined ? null : n * per[unit]!;
}

type Frame = ElementView & {
  color: Rgba;
  fill: Rgba | null;
  /** The opaque colour behind the text, or null when a background image makes it unknown. */
  background: Rgba | null;
  fontPx: number;
  opacity: number;
  visible: boolean;
};

const ROOT: Frame = { name: "#root", id: "", classes: [], attribs: {}, color: BLACK, fill: null, background: WHITE, fontPx: 16, opacity: 1, visible: true };

/** The properties judged here: a style sheet's other declarations are not kept. */
const RELEVANT = new Set([
  "display", "visibility", "content-visibility", "mso-hide", "opacity", "filter", "transform", "zoom", "left", "top", "right", "bottom", "margin-left",
  "margin-top", "text-indent", "inset-inline-start", "inset-block-start", "clip", "clip-path", "overflow", "overflow-x", "overflow-y", "width",
  "height", "max-width", "max-height", "font-size", "color", "-webkit-text-fill-color", "background", "background-color", "background-image",
]);

const MIN_FONT_PX = 3;
const MIN_CONTRAST = 1.5;
const FAR_PX = 1000;

/** The colour a `background` shorthand (or background-color) paints, and whether it has an image. */
function backgroundOf(value: string): { color: Rgba | null; image: boolean } {
  const image = /url\(|gradient\(|image-set\(/.test(value);
  let color: Rgba | null = null;
  for (const token of splitOutsideParens(value.replace(/,/g, " , "), " ")) {
    const c = token.trim() ? parseColor(token) : null;
    if (c) color = c;
  }
  return { color, image };
}

const factor = (s: string) => (s.trim().endsWith("%") ? num(s.trim().slice(0, -1)) / 100 : num(s));

/** Why this element hides all it contains, or null. */
function hidesSubtree(d: Declarations, attribs: Record<string, string>, f: Frame): string | null {
  const get = (p: string) => d.get(p)?.value;
  if ("hidden" in attribs) return "hidden attribute";
  if (get("display") === "none") return "display";
  if (get("content-visibility") === "hidden") return "content-visibility";
  if (get("mso-hide") === "all") return "mso-hide";
  if (/^\s*0\s*$/.test(attribs.width ?? "x") && /^\s*0\s*$/.test(attribs.height ?? "x")) return "zero size";
  if (f.opacity <= 0.1) return "opacity";
  const transform = get("transform") ?? "";
  for (const m of transform.matchAll(/scale(?:x|y|3d)?\(([^)]*)\)/g)) if (m[1]!.split(/[\s,]+/).some((x) => Math.abs(factor(x)) <= 0.05)) return "scale";
  for (const m of transform.matchAll(/translate(?:x|y|3d)?\(([^)]*)\)/g)) if (m[1]!.split(/[\s,]+/).some((x) => Math.abs(toPx(x, f.fontPx) ?? 0) >= FAR_PX)) return "translate";
  const zoom = get("zoom");
  if (zoom !== undefined && factor(zoom) <= 0.05) return "zoom";
  for (const p of ["left", "top", "right", "bottom", "margin-left", "margin-top", "text-indent", "inset-inline-start", "inset-block-start"]) {
    const v = get(p);
    if (v !== undefined && (toPx(v, f.fontPx) ?? 0) <= -FAR_PX) return "offset";
  }
  if (Math.abs(toPx(get("left") ?? "0", f.fontPx) ?? 0) >= 5 * FAR_PX) return "offset";
  const clip = /^rect\(([^)]*)\)$/.exec(get("clip") ?? "");
  if (clip) {
    const [top, right, bottom, left] = clip[1]!.split(/[\s,]+/).filter(Boolean).map((x) => toPx(x, f.fontPx));
    if ([top, right, bottom, left].every((x) => x !== null && x !== undefined) && (bottom! - top! <= 1 || right! - left! <= 1)) return "clip";
  }
  const clipPath = get("clip-path") ?? "";
  const inset = /^inset\(([^)]*)\)/.exec(clipPath);
  if (inset && inset[1]!.split(/\s+/).some((x) => (x.endsWith("%") ? num(x.slice(0, -1)) >= 50 : (toPx(x, f.fontPx) ?? 0) >= FAR_PX))) return "clip-path";
  if (/^(circle|ellipse)\(\s*0(px|%)?[\s)]/.test(clipPath)) return "clip-path";
  const polygon = /^polygon\(([^)]*)\)/.exec(clipPath);
  if (polygon && new Set(polygon[1]!.split(",").map((p) => p.trim().replace(/\s+/g, " "))).size <= 1) return "clip-path";
  const clips = ["overflow", "overflow-x", "overflow-y"].some((p) => /^(hidden|clip)\b/.test(get(p) ?? ""));
  const tiny = (p: string) => {
    const v = get(p);
    const px = v === undefined ? null : toPx(v, f.fontPx);
    return px !== null && px <= 1;
  };
  if (clips && ["width", "height", "max-width", "max-height"].some(tiny)) return "overflow";
  // Kept from the first sanitiser: a zero height or max-height hides, with or without overflow.
  if (["height", "max-height"].some((p) => get(p) !== undefined && toPx(get(p)!, f.fontPx) === 0)) return "zero height";
  return null;
}

/** Presentational attributes, as the lowest-priority declarations. */
function presentational(name: string, attribs: Record<string, string>): Declarations {
  const d: Declarations = new Map();
  const set = (p: string, v: string | undefined) => v && d.set(p, { value: v.trim().toLowerCase(), important: false });
  if (name === "font") set("color", attribs.color);
  if (name === "body") set("color", attribs.text);
  set("background-color", attribs.bgcolor);
  return d;
}

export class HiddenTracker {
  private readonly stack: (Frame & { subtree: boolean })[] = [];
  private readonly index: RuleIndex | null;
  /** Steps up the tree that selector matching may take for one document (css-rules.ts matches). */
  private readonly budget = { steps: 2_000_000 };
  /** Rule checks left for one document; past them the rest of it is judged hidden (a sheet too costly to judge fails closed). */
  private checks = 3_000_000;

  constructor(rules: CssRule[] = []) {
    this.index = rules.length ? indexRules(rules) : null;
  }

  /** A tracker for a document: its style sheets (wherever they are in it) apply, as far as they bear on hiding. */
  static forSheets(sheets: string[]): HiddenTracker {
    return new HiddenTracker(sheets.length ? parseStyleSheet(sheets.join("\n"), 300, (p) => RELEVANT.has(p)) : []);
  }

  private get top(): Frame & { subtree: boolean } {
    return this.stack[this.stack.length - 1] ?? { ...ROOT, subtree: false };
  }

  /** Opens an element; returns why it hides all it contains (a new hidden subtree), or null. */
  open(name: string, attribs: Record<string, string>): string | null {
    const parent = this.top;
    const view: ElementView = { name, id: (attribs.id ?? "").toLowerCase(), classes: (attribs.class ?? "").toLowerCase().split(/\s+/).filter(Boolean), attribs };
    const d = presentational(name, attribs);
    const merge = (from: Declarations) => {
      for (const [p, v] of from) if (!d.get(p)?.important || v.important) d.set(p, v);
    };
    if (this.index) {
      const rules = candidates(this.index, view);
      this.checks -= rules.length;
      if (rules.length && this.checks >= 0) {
        const path = [...this.stack, view];
        for (const rule of rules) if (matches(rule.selector, path, this.budget)) merge(rule.declarations);
      }
    }
    if (attribs.style) merge(parseDeclarations(attribs.style));
    const get = (p: string) => d.get(p)?.value;

    const fontValue = get("font-size");
    let fontPx = parent.fontPx;
    if (fontValue !== undefined) {
      if (FONT_KEYWORDS[fontValue] !== undefined) fontPx = FONT_KEYWORDS[fontValue]!;
      else if (fontValue === "smaller") fontPx = parent.fontPx / 1.2;
      else if (fontValue === "larger") fontPx = parent.fontPx * 1.2;
      else fontPx = toPx(fontValue, parent.fontPx) ?? parent.fontPx;
    }
    const colorValue = get("color");
    const color = colorValue === undefined ? parent.color : (parseColor(colorValue) ?? parent.color);
    const fillValue = get("-webkit-text-fill-color");
    const fill = fillValue === undefined ? parent.fill : fillValue === "currentcolor" ? null : (parseColor(fillValue) ?? parent.fill);
    const bgValue = get("background-color") ?? get("background");
    let background = parent.background;
    if (bgValue !== undefined) {
      const bg = backgroundOf(bgValue);
      if (get("background-color") && get("background")) bg.image ||= backgroundOf(get("background")!).image;
      if (bg.color && bg.color.a > 0) background = parent.background ? over(bg.color, parent.background) : bg.color.a === 1 ? bg.color : null;
      else if (bg.image) background = null;
    }
    if (get("background-image") && get("background-image") !== "none" && !(bgValue && backgroundOf(bgValue).color)) background = null;
    let opacity = parent.opacity;
    const op = get("opacity");
    if (op !== undefined && !Number.isNaN(factor(op))) opacity *= clamp(factor(op), 0, 1);
    const filter = /opacity\(([^)]*)\)/.exec(get("filter") ?? "");
    if (filter && !Number.isNaN(factor(filter[1]!))) opacity *= clamp(factor(filter[1]!), 0, 1);
    const visibility = get("visibility");
    const visible = visibility === "hidden" || visibility === "collapse" ? false : visibility === "visible" ? true : parent.visible;

    const frame = { ...view, color, fill, background, fontPx, opacity, visible, subtree: false };
    const why = parent.subtree ? null : hidesSubtree(d, attribs, frame);
    frame.subtree = parent.subtree || why !== null;
    this.stack.push(frame);
    return why;
  }

  close(): void {
    this.stack.pop();
  }

  /** Why text here (directly in the innermost open element) is hidden from a reader, or null. */
  textHidden(): string | null {
    const f = this.top;
    if (f.subtree) return "hidden element";
    if (this.checks < 0) return "style sheets too costly to judge";
    if (!f.visible) return "visibility";
    if (f.fontPx < MIN_FONT_PX) return "font size";
    const ink = f.fill ?? f.color;
    if (ink.a <= 0.1) return "transparent text";
    if (f.background && contrast(over(ink, f.background), f.background) < MIN_CONTRAST) return "colour on its background";
    return null;
  }
}
