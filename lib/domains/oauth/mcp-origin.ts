import { sql } from "drizzle-orm";
import { queryable } from "../../../db/transaction";
import { AppError } from "../../platform/errors";
import { publicOrigin } from "../../platform/config/public-url";

/**
 * DNS-rebinding protection for the MCP server (MCP transport spec: servers must validate
 * Origin). A request with no Origin (a non-browser client) passes; a browser's Origin must be
 * this deployment's public origin or the origin of a registered client's redirect URI. The
 * request's own Host is never the yardstick: a rebound name makes Host and Origin agree.
 */
export async function checkMcpOrigin(req: Request): Promise<void> {
  const origin = req.headers.get("origin");
  if (origin === null || origin === publicOrigin()) return;
  if (origin.length <= 2000 && origin !== "null") {
    const q = await queryable();
    const { rows } = await q.execute<{ ok: number }>(sql`select 1 as ok from oauth_clients where ${origin} = any(origins) limit 1`);
    if (rows.length > 0) return;
  }
  throw new AppError("forbidden", `Requests from the web origin ${origin.slice(0, 200)} are refused: the MCP server accepts browsers only from ${publicOrigin()} or a registered OAuth client's origin.`);
}
