import { expect } from "vitest";
import { newAgent, newKey, newWorkspace, trustDomains } from "./fixtures";
import type { serveApiForTests } from "./api-client";

type Api = ReturnType<typeof serveApiForTests>["api"];

/** A workspace with an "ops" agent, its mail-scoped key, and an inbox made over the API. */
export async function newAgentInbox(api: Api, username = `ops-${Math.random().toString(36).slice(2, 8)}`, trusting: string[] = []) {
  const { workspace } = await newWorkspace();
  // Correspondents at domains the workspace's admins trust: replies to them are not held for a person (the built-in rule, #48).
  if (trusting.length) await trustDomains(workspace.id, ...trusting);
  const agent = await newAgent(workspace.id, "ops");
  const { key } = await newKey(workspace.id, { agent_id: agent.id, scopes: ["mail"] });
  const res = await api("/api/v1/inboxes", { key, body: { username, display_name: "Ops agent" } });
  expect(res.status).toBe(201);
  return { workspace, agent, key, inbox: res.json as { id: string; address: string } };
}
