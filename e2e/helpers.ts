import type { BrowserContext, CDPSession, Page } from "@playwright/test";
import { mkdirSync } from "node:fs";

/** A page whose browser holds its own virtual passkey authenticator (CDP WebAuthn domain). */
export async function pageWithAuthenticator(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await addAuthenticator(cdp);
  authenticators.set(page, cdp);
  return page;
}

const authenticators = new WeakMap<Page, CDPSession>();

async function addAuthenticator(cdp: CDPSession): Promise<string> {
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  current.set(cdp, authenticatorId);
  return authenticatorId;
}

const current = new WeakMap<CDPSession, string>();

/** Swaps the page's authenticator for a new, empty one: like moving to another device. */
export async function switchToNewAuthenticator(page: Page): Promise<void> {
  const cdp = authenticators.get(page)!;
  await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId: current.get(cdp)! });
  await addAuthenticator(cdp);
}

/** Full-page screenshots of the main pages, for people to look at (gitignored). */
export async function snap(page: Page, name: string) {
  mkdirSync("e2e/artifacts", { recursive: true });
  await page.screenshot({ path: `e2e/artifacts/${name}.png`, fullPage: true });
}

/** Copies the passkeys held by one page's authenticator into another's: the same passkey synced to a second device. */
export async function copyPasskeys(from: Page, to: Page): Promise<void> {
  const source = authenticators.get(from)!;
  const target = authenticators.get(to)!;
  const { credentials } = await source.send("WebAuthn.getCredentials", { authenticatorId: current.get(source)! });
  for (const credential of credentials) await target.send("WebAuthn.addCredential", { authenticatorId: current.get(target)!, credential });
}

/** Whether the page's authenticator verifies the person (fingerprint, face, PIN) when asked. */
export async function setUserVerified(page: Page, isUserVerified: boolean): Promise<void> {
  const cdp = authenticators.get(page)!;
  await cdp.send("WebAuthn.setUserVerified", { authenticatorId: current.get(cdp)!, isUserVerified });
}
