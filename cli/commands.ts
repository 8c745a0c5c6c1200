import { runMigrations } from "../db/migrate";
import { migrationStatus } from "../db/migration-status";
import { functionsStatus } from "../db/functions-status";
import { getDriver } from "../db/client";
import { migrationUrlWarning } from "../db/config";
import { operatorActor } from "../lib/platform/actor";
import { createWorkspace } from "../lib/domains/workspaces/create-workspace";
import { getWorkspace } from "../lib/domains/workspaces/get-workspace";
import { serializeWorkspace } from "../lib/domains/workspaces/serialize";
import { createAgent } from "../lib/domains/agents/create-agent";
import { serializeAgent } from "../lib/domains/agents/serialize";
import { findAgent } from "../lib/domains/agents/find-agent";
import { updateAgent } from "../lib/domains/agents/update-agent";
import { setPreemptFloor } from "../lib/domains/workspaces/preempt-floor";
import { createKey } from "../lib/domains/api-keys/create-key";
import { keyWorkspace, revokeKey } from "../lib/domains/api-keys/revoke-key";
import { serializeApiKey } from "../lib/domains/api-keys/serialize";
import type { CreateKeyInput } from "../lib/domains/api-keys/schemas";
import { createScimToken, revokeScimToken, serializeScimToken } from "../lib/domains/scim/tokens";
import { UsageError } from "./errors";
import { loadtestCommand } from "./loadtest-command";
import { smtpCommand } from "./smtp-command";
import { domainCommands } from "./domains-command";
import { inviteFromCli } from "../lib/domains/invitations/invite-from-cli";
import { sealBeforeRead } from "../lib/platform/audit/seal-chain";
import { listCheckpoints, serializeCheckpoint, signCheckpoint } from "../lib/platform/audit/checkpoints";
import { verifyChain } from "../lib/platform/audit/verify-chain";
import { sealPlainSecrets } from "../lib/domains/webhooks/seal-plain-secrets";
import { publicOrigin } from "../lib/platform/config/public-url";

import type { Command, Flags } from "./command";

export type { Command, Flags, Notice, Output } from "./command";

function cliPriority(value: string, usage: string): number {
  const n = Number(value);
  if (!/^\d{1,3}$/.test(value) || n > 100) throw new UsageError(`A priority is a whole number from 0 to 100 (got ${JSON.stringify(value)}). Usage: ${usage}`);
  return n;
}

function required(flags: Flags, name: string, usage: string): string {
  const v = flags[name];
  if (typeof v !== "string" || v.trim() === "") throw new UsageError(`--${name} is required. Usage: ${usage}`);
  return v.trim();
}

const scopesFrom = (v: string | boolean | undefined): CreateKeyInput["scopes"] =>
  typeof v === "string" ? (v.split(",").map((s) => s.trim()).filter(Boolean) as NonNullable<CreateKeyInput["scopes"]>) : undefined;

/** The function files a migrate applied: named when a few (a change), counted when many (a new database). */
const appliedNow = (names: string[]) => (names.length === 0 ? "" : names.length <= 5 ? ` (applied now: ${names.join(", ")})` : ` (${names.length} applied now)`);

export const COMMANDS: Record<string, Command> = {
  "db migrate": {
    usage: "agentdraft db migrate",
    summary: "Apply pending database migrations and changed database functions, then seal any webhook secret still stored in plain text (idempotent).",
    flags: {},
    needsSchema: false,
    run: async (_flags, notice) => {
      // Said before migrating, so a build log shows it even when the migration then fails.
      const warning = migrationUrlWarning();
      if (warning) notice.write(`warning: ${warning}\n`);
      const status = await runMigrations();
      const driver = await getDriver();
      // The one backfill the SQL cannot do (the key never lives in the database): rows from before 0047.
      const sealedSecrets = await sealPlainSecrets();
      return {
        json: { driver, ...status, sealed_webhook_secrets: sealedSecrets },
        human: [
          `Database (${driver}) is up to date: ${status.applied} migrations applied, latest ${status.latest}; ${status.functions.total} database functions current${appliedNow(status.functions.applied)}.`,
          ...(sealedSecrets ? [`Sealed ${sealedSecrets} webhook endpoint secret${sealedSecrets === 1 ? "" : "s"} stored in plain text before migration 0047.`] : []),
        ],
      };
    },
  },
  "db status": {
    usage: "agentdraft db status",
    summary: "Show the driver, which migrations are applied or pending, and which database functions (db/functions) are newer than the database.",
    flags: {},
    needsSchema: false,
    run: async () => {
      const status = await migrationStatus();
      const functions = await functionsStatus();
      const driver = await getDriver();
      return {
        json: { driver, ...status, functions },
        human: [
          `Driver: ${driver}`,
          `Applied: ${status.applied} (latest ${status.latest ?? "none"})`,
          status.pending.length ? `Pending: ${status.pending.join(", ")} — run \`npx agentdraft db migrate\`` : "Pending: none",
          functions.pending.length
            ? `Database functions: ${functions.current} of ${functions.total} current; newer in db/functions: ${functions.pending.join(", ")} — run \`npx agentdraft db migrate\``
            : `Database functions: ${functions.total} current`,
        ],
      };
    },
  },
  "workspace create": {
    usage: "agentdraft workspace create --name NAME",
    summary: "Create a workspace (the tenant every agent, key and record belongs to).",
    flags: { name: "string" },
    run: async (flags) => {
      const ws = serializeWorkspace(await createWorkspace({ name: required(flags, "name", COMMANDS["workspace create"]!.usage) }));
      return { json: ws, human: [`Created workspace ${ws.id} (${ws.name}).`] };
    },
  },
  "agent create": {
    usage: "agentdraft agent create --workspace WORKSPACE_ID --name NAME [--description TEXT]",
    summary: "Create an agent in a workspace.",
    flags: { workspace: "string", name: "string", description: "string" },
    run: async (flags) => {
      const usage = COMMANDS["agent create"]!.usage;
      const ws = await getWorkspace(required(flags, "workspace", usage));
      const name = required(flags, "name", usage);
      const description = typeof flags.description === "string" ? flags.description : undefined;
      const agent = serializeAgent(await createAgent(operatorActor(ws.id), { name, description }));
      return { json: agent, human: [`Created agent ${agent.id} (${agent.name}) in ${ws.id}.`] };
    },
  },
  "agent set-ceiling": {
    usage: "agentdraft agent set-ceiling --workspace WORKSPACE_ID --agent AGENT_ID_OR_NAME --max-priority 0-100",
    summary: "Set an agent's priority ceiling: its keys asking for a higher priority (holds, leases) get 403 priority_above_ceiling.",
    flags: { workspace: "string", agent: "string", "max-priority": "string" },
    run: async (flags) => {
      const usage = COMMANDS["agent set-ceiling"]!.usage;
      const ws = await getWorkspace(required(flags, "workspace", usage));
      const agent = await findAgent(ws.id, required(flags, "agent", usage));
      const max = cliPriority(required(flags, "max-priority", usage), usage);
      const row = serializeAgent(await updateAgent(operatorActor(ws.id), agent.id, { max_priority: max }));
      return { json: row, human: [`Agent ${row.id} (${row.name}) may now ask for priority ${row.max_priority} at most.`] };
    },
  },
  "workspace set-preempt-floor": {
    usage: "agentdraft workspace set-preempt-floor --workspace WORKSPACE_ID --min-priority 0-100",
    summary: "Holds placed below this priority never preempt another hold (0: off).",
    flags: { workspace: "string", "min-priority": "string" },
    run: async (flags) => {
      const usage = COMMANDS["workspace set-preempt-floor"]!.usage;
      const ws = await getWorkspace(required(flags, "workspace", usage));
      const row = await setPreemptFloor(operatorActor(ws.id), cliPriority(required(flags, "min-priority", usage), usage));
      const n = row.holdPreemptMinPriority;
      return {
        json: { ...serializeWorkspace(row), hold_preempt_min_priority: n },
        human: [n === 0 ? `Holds of any priority in ${ws.id} may preempt lower ones.` : `Holds below priority ${n} in ${ws.id} never preempt.`],
      };
    },
  },
  "key create": {
    usage:
      "agentdraft key create --workspace WORKSPACE_ID [--agent AGENT_ID_OR_NAME] [--scopes mail,calendar,approvals,audit,webhooks] [--name NAME] [--test]",
    summary: "Create an API key. The key is printed once; only its hash is stored.",
    flags: { workspace: "string", agent: "string", scopes: "string", name: "string", test: "boolean" },
    run: async (flags) => {
      const ws = await getWorkspace(required(flags, "workspace", COMMANDS["key create"]!.usage));
      const { row, key } = await createKey(operatorActor(ws.id), {
        agent_id: typeof flags.agent === "string" ? flags.agent : undefined,
        scopes: scopesFrom(flags.scopes),
        name: typeof flags.name === "string" ? flags.name : undefined,
        mode: flags.test ? "test" : "live",
      });
      const out = { ...serializeApiKey(row), key };
      return {
        json: out,
        human: [
          `Created API key ${row.id} (${row.agentId ? `acts as ${row.agentId}` : "workspace-wide"}, scopes: ${row.scopes?.join(",") ?? "all"}).`,
          "",
          `  ${key}`,
          "",
          "Store it now: it is shown only this once.",
        ],
      };
    },
  },
  "key revoke": {
    usage: "agentdraft key revoke --id KEY_ID",
    summary: "Revoke an API key; requests with it get 401 from then on.",
    flags: { id: "string" },
    run: async (flags) => {
      const id = required(flags, "id", COMMANDS["key revoke"]!.usage);
      const row = await revokeKey(operatorActor(await keyWorkspace(id)), id);
      return { json: serializeApiKey(row), human: [`Revoked API key ${row.id} at ${row.revokedAt?.toISOString()}.`] };
    },
  },
  "scim-token create": {
    usage: "agentdraft scim-token create --workspace WORKSPACE_ID [--name NAME]",
    summary: "Create a SCIM token for the workspace's identity provider (docs/scim.md). Printed once; only its hash is stored.",
    flags: { workspace: "string", name: "string" },
    run: async (flags) => {
      const ws = await getWorkspace(required(flags, "workspace", COMMANDS["scim-token create"]!.usage));
      const { row, token } = await createScimToken(operatorActor(ws.id), { name: typeof flags.name === "string" ? flags.name : undefined });
      return {
        json: { ...serializeScimToken(row), token },
        human: [`Created SCIM token ${row.id} for ${ws.id}. Give your identity provider the base URL https://<your host>/scim/v2 and:`, "", `  ${token}`, "", "Store it now: it is shown only this once."],
      };
    },
  },
  "scim-token revoke": {
    usage: "agentdraft scim-token revoke --workspace WORKSPACE_ID --id SCIM_TOKEN_ID",
    summary: "Revoke a SCIM token; the identity provider's requests with it get 401 from then on.",
    flags: { workspace: "string", id: "string" },
    run: async (flags) => {
      const usage = COMMANDS["scim-token revoke"]!.usage;
      const ws = await getWorkspace(required(flags, "workspace", usage));
      const row = await revokeScimToken(operatorActor(ws.id), required(flags, "id", usage));
      return { json: serializeScimToken(row), human: [`Revoked SCIM token ${row.id} at ${row.revokedAt?.toISOString()}.`] };
    },
  },
  "member invite": {
    usage: "agentdraft member invite --workspace WS_ID --email EMAIL --role owner|admin|approver|viewer [--url https://your-app]",
    summary: "Invite someone (owner included) and print the one-time link to hand them; nothing is mailed.",
    flags: { workspace: "string", email: "string", role: "string", url: "string" },
    run: async (flags) => {
      const usage = COMMANDS["member invite"]!.usage;
      const role = required(flags, "role", usage);
      if (!["owner", "admin", "approver", "viewer"].includes(role)) throw new UsageError(`--role must be owner, admin, approver or viewer. Usage: ${usage}`);
      const base = typeof flags.url === "string" ? flags.url : publicOrigin();
      const { invitation, link } = await inviteFromCli(
        { workspace_id: required(flags, "workspace", usage), email: required(flags, "email", usage), role: role as "owner" },
        base,
      );
      return {
        json: { id: invitation.id, object: "invitation", email: invitation.email, role: invitation.role, expires_at: invitation.expiresAt.toISOString(), link },
        human: [
          `Invited ${invitation.email} as ${invitation.role}. Hand them this link (it works once, until ${invitation.expiresAt.toISOString()}):`,
          link,
        ],
      };
    },
  },
  "audit checkpoints": {
    usage: "agentdraft audit checkpoints --workspace WS_ID [--sign]",
    summary: "Print the workspace's signed audit checkpoints, newest first, for a witness to keep (--sign: sign the current head first).",
    flags: { workspace: "string", sign: "boolean" },
    run: async (flags) => {
      const ws = await getWorkspace(required(flags, "workspace", COMMANDS["audit checkpoints"]!.usage));
      if (flags.sign) {
        await sealBeforeRead(ws.id);
        await signCheckpoint(ws.id);
      }
      const { items } = await listCheckpoints(ws.id, { limit: 100 });
      const rows = items.map(serializeCheckpoint);
      return {
        json: rows,
        human: rows.length ? rows.map((c) => `${c.signed_at}  seq ${c.seq}  ${c.hash}\n  ${c.jws}`) : ["No checkpoints yet (they are signed a few seconds after the first audit entries; --sign makes one now)."],
      };
    },
  },
  "audit verify": {
    usage: "agentdraft audit verify --workspace WS_ID [--checkpoint JWS]",
    summary: "Recompute the workspace's audit chain and check it against a signed checkpoint (a witness's, else the latest stored). Exits 1 when broken.",
    flags: { workspace: "string", checkpoint: "string" },
    run: async (flags) => {
      const ws = await getWorkspace(required(flags, "workspace", COMMANDS["audit verify"]!.usage));
      const result = await verifyChain(ws.id, { checkpoint: typeof flags.checkpoint === "string" ? flags.checkpoint.trim() : undefined });
      if (!result.valid) throw new Error(`Audit chain of ${ws.id} is broken at ${result.first_broken!.seq}: ${result.first_broken!.reason} (${result.first_broken!.detail}).`);
      const anchored = result.checkpoint ? `, anchored at checkpoint seq ${result.checkpoint.seq} (${result.checkpoint.source})` : ", no checkpoint yet";
      return { json: result, human: [`Audit chain of ${ws.id} verifies: ${result.entries_checked} entries${anchored}.`] };
    },
  },
  ...domainCommands,
  loadtest: loadtestCommand,
  smtp: smtpCommand,
};
