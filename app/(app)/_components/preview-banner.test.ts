import { afterEach, describe, expect, it } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { resetEnvCache } from "@/lib/platform/config/env";
import { PreviewBanner } from "./preview-banner";

const set = (vars: Record<string, string | undefined>) => {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvCache();
};
const saved = { VERCEL_ENV: process.env.VERCEL_ENV, AGENTDRAFT_PREVIEW: process.env.AGENTDRAFT_PREVIEW, AGENTDRAFT_PREVIEW_SEND: process.env.AGENTDRAFT_PREVIEW_SEND };
afterEach(() => set(saved));
const banner = () => renderToStaticMarkup(createElement(PreviewBanner));

describe("the preview banner", () => {
  it("says on every page of a preview what it captures instead of sending, and links to it", () => {
    set({ VERCEL_ENV: "preview", AGENTDRAFT_PREVIEW: undefined, AGENTDRAFT_PREVIEW_SEND: undefined });
    expect(banner()).toContain("Preview deployment.");
    expect(banner()).toContain("Its webhooks, mail, channel notices and calendar writes are captured here, not sent.");
    expect(banner()).toContain('href="/captured"');
    set({ AGENTDRAFT_PREVIEW_SEND: "mail" });
    expect(banner()).toContain("Its webhooks, channel notices and calendar writes are captured here, not sent (the rest are sent: AGENTDRAFT_PREVIEW_SEND).");
  });

  it("is absent in production", () => {
    set({ VERCEL_ENV: "production", AGENTDRAFT_PREVIEW: undefined });
    expect(banner()).toBe("");
  });
});
