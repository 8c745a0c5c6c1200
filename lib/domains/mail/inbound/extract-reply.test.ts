import { afterEach, describe, expect, it, vi } from "vitest";
import EmailReplyParser from "email-reply-parser";
import { REPLY_SHAPES } from "../../../../test/corpora/replies";
import { EXTRACT_SCAN_CHARS, extractReply } from "./extract-reply";
import { sanitizeEmailHtml, inspectHtml } from "./sanitize-html";

const squashSpace = (s: string) => s.replace(/\s+/g, " ").trim();
const sanitised = (html: string) => sanitizeEmailHtml(html, inspectHtml(html, { maxElements: 100_000, maxDepth: 500 })).html;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("reply extraction on the reply shapes of common clients", () => {
  for (const shape of REPLY_SHAPES) {
    it(`${shape.name} (${shape.client}, ${shape.lang}): the new text only`, () => {
      const out = extractReply(shape.text, null, shape.subject);
      expect(out.fallback).toBeNull();
      expect(squashSpace(out.text)).toBe(squashSpace(shape.reply));
      expect(out.text).not.toContain(shape.quoted);
    });
    if (shape.html) {
      it(`${shape.name}: the same cut in the sanitised HTML`, () => {
        const html = sanitised(shape.html!);
        const out = extractReply(shape.text, html, shape.subject);
        expect(out.html).not.toBeNull();
        expect(out.html).not.toContain(shape.quoted);
        // The new text survives the cut (its first line at least), and the HTML is shorter.
        expect(out.html!.replace(/&apos;|&#x27;/g, "'")).toContain(shape.reply.split("\n")[0]!);
        expect(out.html!.length).toBeLessThan(html.length);
        expect(out.html).not.toMatch(/wrote:|schrieb|a écrit|From:/);
      });
    }
  }
});

describe("bounded, and never fatal", () => {
  it("keeps the full text, saying so, when the parser throws", () => {
    vi.spyOn(EmailReplyParser.prototype, "read").mockImplementation(() => {
      throw new Error("boom");
    });
    const text = REPLY_SHAPES[0]!.text;
    expect(extractReply(text, "<p>x</p>")).toEqual({ text, html: "<p>x</p>", fallback: "error" });
  });

  it("keeps the full text when no quote is found in the scanned part of a longer text", () => {
    const text = "word ".repeat(EXTRACT_SCAN_CHARS / 4);
    const out = extractReply(text, null);
    expect(out).toMatchObject({ fallback: "too_large" });
    expect(out.text).toBe(text);
  });

  it("cuts a long reply whose quote starts within the scanned part, reading only that part of hostile input", () => {
    const quoted = `${"> a line of quoted history\n".repeat(50_000)}`;
    const text = `Short answer.\n\nOn Mon, Nov 30, 2026 at 4:12 PM Bob <bob@example.com> wrote:\n\n${quoted}`;
    const read = vi.spyOn(EmailReplyParser.prototype, "read");
    const out = extractReply(text, `<div>Short answer.</div><blockquote>${"<div>q</div>".repeat(20_000)}</blockquote>`);
    expect(out).toMatchObject({ text: "Short answer.", html: "<div>Short answer.</div>", fallback: null });
    // The work done, not the time taken: the reply parser (whose cost grows with its input) read
    // the first EXTRACT_SCAN_CHARS of the 1.3 MB text, once.
    expect(text.length).toBeGreaterThan(20 * EXTRACT_SCAN_CHARS);
    expect(read.mock.calls.map(([input]) => input.length)).toEqual([EXTRACT_SCAN_CHARS]);
  });

  it("without a quote, the HTML stays whole", () => {
    const out = extractReply("Just this.", "<p>Just this.</p>");
    expect(out).toEqual({ text: "Just this.", html: "<p>Just this.</p>", fallback: null });
  });
});
