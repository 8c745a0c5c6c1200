/**
 * Canonical JSON (in the spirit of RFC 8785): object keys sorted by code point, no
 * whitespace, `undefined` members omitted. Equal values always give equal strings, so a
 * hash over it can be recomputed by anyone holding the data. Iterative: nesting of any depth
 * costs memory, never the call stack (a deep value must not be a 500).
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // Work in reverse order of output: literal text, or a value still to encode.
  const work: ({ text: string } | { value: unknown })[] = [{ value }];
  while (work.length) {
    const next = work.pop()!;
    if ("text" in next) {
      out.push(next.text);
      continue;
    }
    const v = next.value;
    if (v === null || typeof v === "boolean" || typeof v === "string") out.push(JSON.stringify(v));
    else if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new TypeError("canonicalJson: non-finite number");
      out.push(JSON.stringify(v));
    } else if (v instanceof Date) out.push(JSON.stringify(v.toISOString()));
    else if (Array.isArray(v)) {
      work.push({ text: "]" });
      for (let i = v.length - 1; i >= 0; i--) {
        work.push({ value: v[i] === undefined ? null : v[i] });
        if (i > 0) work.push({ text: "," });
      }
      work.push({ text: "[" });
    } else if (typeof v === "object") {
      const entries = Object.entries(v as Record<string, unknown>)
        .filter(([, member]) => member !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      work.push({ text: "}" });
      for (let i = entries.length - 1; i >= 0; i--) {
        work.push({ value: entries[i]![1] });
        work.push({ text: `${JSON.stringify(entries[i]![0])}:` });
        if (i > 0) work.push({ text: "," });
      }
      work.push({ text: "{" });
    } else throw new TypeError(`canonicalJson: cannot encode ${typeof v}`);
  }
  return out.join("");
}
