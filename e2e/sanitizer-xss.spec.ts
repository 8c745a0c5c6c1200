import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { sanitizeEmailHtml } from "../lib/domains/mail/inbound/sanitize-html";
import { parseMessage } from "../lib/domains/mail/inbound/parse-message";
import { composeMime } from "../test/helpers/mime";

// The inbound-HTML sanitiser against the XSS corpus, rendered in real Chromium: no script
// may run (no dialog, no handler, no javascript: navigation, no timer) and nothing remote may
// load (every request leaving the page is recorded and refused).
const payloads: { id: string; payload: string }[] = JSON.parse(readFileSync("test/corpora/xss/payloads.json", "utf8"));

// The page itself is served by the route below from a name that resolves nowhere; every other
// request is recorded and refused, so nothing leaves the machine.
const PAGE = "http://sanitizer.invalid/";

test("the sanitised XSS corpus runs no script and loads nothing remote in Chromium", async ({ page }) => {
  const requests: string[] = [];
  const dialogs: string[] = [];
  let html = "";
  await page.route("**/*", (route) => {
    if (route.request().url() === PAGE && route.request().resourceType() === "document" && requests.length === 0 && html) {
      const body = html;
      html = "";
      return route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body });
    }
    requests.push(route.request().url());
    return route.abort();
  });
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  // Anything that runs would call one of these (or navigate, which the route above records).
  await page.addInitScript(() => {
    const w = window as unknown as { __ran: string[] };
    w.__ran = [];
    for (const name of ["alert", "confirm", "prompt", "print", "open"] as const) {
      (window as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => w.__ran.push(`${name}(${args.join(",")})`);
    }
  });

  const bodies: string[] = [];
  for (const { id, payload } of payloads) {
    bodies.push(`<section data-id="${id}">${sanitizeEmailHtml(payload).html}</section>`);
    const mime = await composeMime({ from: "x@evil.test", to: "ops@agents.test", subject: id, html: `<html><body><p>Hello</p>${payload}</body></html>` });
    const parsed = await parseMessage(mime);
    bodies.push(`<section data-id="${id}-mail">${parsed.htmlSanitized ?? ""}</section>`);
  }
  html = `<!doctype html><html><head><meta charset="utf-8"></head><body>${bodies.join("\n")}</body></html>`;
  await page.goto(PAGE, { waitUntil: "load" });
  // Give timers, lazy images and meta refreshes their chance; hover and click everything.
  await page.mouse.move(10, 10);
  for (const link of await page.locator("a").all()) await link.hover({ force: true, timeout: 1000 }).catch(() => {});
  await page.waitForTimeout(1500);

  const ran = await page.evaluate(() => (window as unknown as { __ran: string[] }).__ran);
  expect(ran).toEqual([]);
  expect(dialogs).toEqual([]);
  expect(requests).toEqual([]);
  expect(page.url()).toBe(PAGE);
  expect(await page.locator("section").count()).toBe(payloads.length * 2);
});
