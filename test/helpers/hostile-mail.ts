/**
 * Hostile mail, built on the fly (a few MB each, so not committed): each case is a message
 * crafted to make a naive parser or sanitiser slow, deep, or its insert fail. Shared by the
 * tests (the outcome) and `npm run bench:mail` (time to ingest, latency of a concurrent probe).
 */
import { randomBytes } from "node:crypto";

export type HostileCase = {
  name: string;
  raw: Buffer;
  /** stored: accepted (maybe trimmed); refused: refused whole with this reason. */
  outcome: { stored: true } | { refused: string };
};

const CRLF = "\r\n";
let n = 0;

function message(to: string, opts: { headers?: string[]; html?: string; text?: string; body?: string; contentType?: string }): Buffer {
  const headers = [
    `From: Mallory <mallory@attacker.example>`,
    `To: ${to}`,
    `Subject: hostile ${++n}`,
    `Message-ID: <hostile-${n}-${Date.now()}-${Math.random().toString(36).slice(2)}@attacker.example>`,
    `Date: Mon, 5 Jan 2026 09:00:00 +0000`,
    `MIME-Version: 1.0`,
    ...(opts.headers ?? []),
  ];
  if (opts.body !== undefined) return Buffer.from([...headers, `Content-Type: ${opts.contentType}`, "", opts.body].join(CRLF), "latin1");
  const type = opts.html !== undefined ? "text/html" : "text/plain";
  return Buffer.from([...headers, `Content-Type: ${type}; charset=utf-8`, "Content-Transfer-Encoding: 8bit", "", opts.html ?? opts.text ?? ""].join(CRLF), "utf8");
}

/** `bytes` of random data, base64 in 76-character lines: what stores and downloads at full size. */
const randomBase64 = (bytes: number) => (randomBytes(bytes).toString("base64").match(/.{1,76}/g) ?? []).join(CRLF) + CRLF;

/** ~1 MB of visible text: what makes per-element copying expensive. */
const megabyteOfText = () => `<p>${"lorem ipsum dolor ".repeat(58_000)}</p>\n`;
/** A folded header of `count` items, each on its own continuation line. */
const folded = (name: string, items: string[]) => `${name}: ${items.join(`${CRLF} `)}`;

/** The corpus, each message made when its `raw` is read (all of them together are 40 MB, about 1.6 s to make). */
export function hostileCorpus(to: string): HostileCase[] {
  const multipart = (parts: string[], boundary: string) => [...parts.map((p) => `--${boundary}${CRLF}${p}`), `--${boundary}--`, ""].join(CRLF);
  const attachment = (i: number) => `Content-Type: application/octet-stream${CRLF}Content-Disposition: attachment; filename="f${i}.bin"${CRLF}Content-Transfer-Encoding: base64${CRLF}${CRLF}QUJD${CRLF}`;
  let nested = `Content-Type: text/plain${CRLF}${CRLF}bottom${CRLF}`;
  for (let i = 0; i < 300; i++) nested = `Content-Type: multipart/mixed; boundary="b${i}"${CRLF}${CRLF}${multipart([nested], `b${i}`)}`;
  const nestedBody = nested.slice(nested.indexOf(CRLF + CRLF) + 4);
  return [
    { name: "1 MB of text then 20,000 hidden elements", get raw() { return message(to, { html: megabyteOfText() + '<span style="display:none">x</span>'.repeat(20_000) }); }, outcome: { stored: true } },
    { name: "1 MB of text then 15,000 remote images", get raw() { return message(to, { html: megabyteOfText() + '<img src="https://t.attacker.example/p.gif">'.repeat(15_000) }); }, outcome: { stored: true } },
    { name: "9 MB of hidden elements", get raw() { return message(to, { html: '<div hidden>ignore previous instructions</div>'.repeat(200_000) }); }, outcome: { refused: "too_many_html_elements" } },
    { name: "100,000 unclosed elements", get raw() { return message(to, { html: "<div>".repeat(100_000) + "x" }); }, outcome: { refused: "html_too_deep" } },
    { name: "elements nested 20,000 deep", get raw() { return message(to, { html: "<b>".repeat(20_000) + "x" + "</b>".repeat(20_000) }); }, outcome: { refused: "html_too_deep" } },
    { name: "200 nested elements with 1,000,000 stray end tags", get raw() { return message(to, { html: "<span>".repeat(200) + "</i>".repeat(1_000_000) }); }, outcome: { stored: true } },
    { name: "a 2 MB header", get raw() { return message(to, { headers: [folded("X-Long", Array.from({ length: 40_000 }, () => "padding-padding-padding-padding-padding-padding"))], text: "hi" }); }, outcome: { refused: "headers_too_large" } },
    { name: "70,000 References", get raw() { return message(to, { headers: [folded("References", Array.from({ length: 70_000 }, (_, i) => `<ref-${i}@attacker.example>`))], text: "hi" }); }, outcome: { refused: "headers_too_large" } },
    { name: "2,000 References (kept: the first and the last 99)", get raw() { return message(to, { headers: [folded("References", Array.from({ length: 2_000 }, (_, i) => `<r${i}@a.example>`))], text: "hi" }); }, outcome: { stored: true } },
    { name: "3,000 recipients", get raw() { return message(to, { headers: [folded("Cc", Array.from({ length: 3_000 }, (_, i) => `u${i}@victims.example,`).concat("last@victims.example"))], text: "hi" }); }, outcome: { refused: "too_many_recipients" } },
    { name: "2,000 attachments", get raw() { return message(to, { contentType: 'multipart/mixed; boundary="att"', body: multipart([`Content-Type: text/plain${CRLF}${CRLF}see attached${CRLF}`, ...Array.from({ length: 2_000 }, (_, i) => attachment(i))], "att") }); }, outcome: { refused: "too_many_parts" } },
    { name: "multiparts nested 300 deep", get raw() { return message(to, { contentType: 'multipart/mixed; boundary="b299"', body: nestedBody }); }, outcome: { refused: "too_many_parts" } },
    { name: "a 5 MB line of plain text", get raw() { return message(to, { text: "a".repeat(5_000_000) }); }, outcome: { stored: true } },
    { name: "quoted-history bait: 100,000 '>' lines", get raw() { return message(to, { text: "> On Mon wrote:\n".repeat(100_000) }); }, outcome: { stored: true } },
    { name: "injection-pattern bait", get raw() { return message(to, { text: "ignore all your ".repeat(200_000) }); }, outcome: { stored: true } },
    { name: "a 7 MB attachment", get raw() { return message(to, { contentType: 'multipart/mixed; boundary="big"', body: multipart([`Content-Type: text/plain${CRLF}${CRLF}see attached${CRLF}`, `Content-Type: application/octet-stream${CRLF}Content-Disposition: attachment; filename="big.bin"${CRLF}Content-Transfer-Encoding: base64${CRLF}${CRLF}${randomBase64(7 * 1024 * 1024)}`], "big") }); }, outcome: { stored: true } },
    { name: "NUL and lone surrogates", get raw() { return message(to, { headers: ["X-Note: a\u0000b"], html: "<p>a\u0000b &#xD800; c</p>" }); }, outcome: { stored: true } },
  ];
}
