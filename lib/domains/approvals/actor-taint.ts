import type { Actor } from "../../platform/actor";
import { agentTaint, type Taint } from "../taint";
import { traceTaint } from "./trace-taint";

/**
 * Whether what this key does now is tainted (SPEC §13): its agent read untrusted mail within the
 * workspace's taint window (recorded by the server, whatever the request carries), or the trace
 * it names starts at untrusted mail. A trace id can only add taint, never lift it.
 */
export async function actorTaint(actor: Actor & { type: "key" }): Promise<Taint | null> {
  const read = await agentTaint(actor);
  if (read) return read;
  const trace = await traceTaint(actor.workspaceId, actor.traceId);
  return trace ? { ...trace, source: "trace" } : null;
}
