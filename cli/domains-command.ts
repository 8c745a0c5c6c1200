import { operatorActor } from "../lib/platform/actor";
import { getWorkspace } from "../lib/domains/workspaces/get-workspace";
import { createDomain, inboxCounts, listDomains, verifyDomain } from "../lib/domains/mail/mail-domains";
import { serializeDomain } from "../lib/domains/mail/domain-operations";
import { UsageError } from "./errors";
import type { Command, Flags } from "./command";

type Domain = ReturnType<typeof serializeDomain>;

function required(flags: Flags, name: string, usage: string): string {
  const v = flags[name];
  if (typeof v !== "string" || v.trim() === "") throw new UsageError(`--${name} is required. Usage: ${usage}`);
  return v.trim();
}

/** The domain and its DNS records, one a line, ready to copy into a DNS provider. */
function describe(d: Domain): string[] {
  return [
    `${d.name}  ${d.status}  (${d.id}${d.inboxes ? `, ${d.inboxes} inbox${d.inboxes === 1 ? "" : "es"}` : ""})`,
    ...(d.note ? [`  ${d.note}`] : []),
    ...(d.last_error ? [`  last error: ${d.last_error}`] : []),
    ...d.records.map((r) => `  ${r.record.padEnd(9)} ${r.type.padEnd(5)} ${r.name}  ${r.priority !== null ? `${r.priority} ` : ""}${r.value}  [${r.status}]`),
  ];
}

const ADD = "agentdraft domains add --workspace WORKSPACE_ID --name DOMAIN";
const LIST = "agentdraft domains list --workspace WORKSPACE_ID";
const VERIFY = "agentdraft domains verify --workspace WORKSPACE_ID --id DOMAIN_ID_OR_NAME";

export const domainCommands: Record<string, Command> = {
  "domains add": {
    usage: ADD,
    summary: "Add a workspace's own mail domain (registered with Resend when RESEND_API_KEY is set) and print the DNS records to create.",
    flags: { workspace: "string", name: "string" },
    run: async (flags) => {
      const ws = await getWorkspace(required(flags, "workspace", ADD));
      const d = serializeDomain(await createDomain(operatorActor(ws.id), { name: required(flags, "name", ADD) }));
      return { json: d, human: [`Added ${d.name} to ${ws.id}.`, ...describe(d)] };
    },
  },
  "domains list": {
    usage: LIST,
    summary: "List a workspace's mail domains with their DNS records and states.",
    flags: { workspace: "string" },
    run: async (flags) => {
      const ws = await getWorkspace(required(flags, "workspace", LIST));
      const { items } = await listDomains(operatorActor(ws.id), { limit: 100 });
      const counts = await inboxCounts(items.map((d) => d.id));
      const rows = items.map((d) => serializeDomain(d, counts.get(d.id) ?? 0));
      return { json: rows, human: rows.length ? rows.flatMap(describe) : [`${ws.id} has no domains of its own (inboxes use AGENTDRAFT_MAIL_DOMAIN).`] };
    },
  },
  "domains verify": {
    usage: VERIFY,
    summary: "Check a domain's DNS records at Resend now (and start its scheduled checks over while it is not verified).",
    flags: { workspace: "string", id: "string" },
    run: async (flags) => {
      const ws = await getWorkspace(required(flags, "workspace", VERIFY));
      const actor = operatorActor(ws.id);
      const wanted = required(flags, "id", VERIFY).toLowerCase();
      const { items } = await listDomains(actor, { limit: 100 });
      const found = items.find((d) => d.id === wanted || d.name === wanted.replace(/\.$/, ""));
      if (!found) throw new UsageError(`${ws.id} has no domain ${wanted}. See: ${LIST}`);
      const d = serializeDomain(await verifyDomain(actor, found.id), (await inboxCounts([found.id])).get(found.id) ?? 0);
      return { json: d, human: describe(d) };
    },
  },
};
