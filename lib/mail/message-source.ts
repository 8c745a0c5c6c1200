import { eq } from "drizzle-orm";
import { queryable } from "../../db/transaction";
import { messageSources } from "../../db/schema";
import type { Actor } from "../actor";
import { notFound } from "../errors";
import { findMessage } from "./read-mail";

/** A message's RFC 5322 bytes as received or as composed to send (held mail: exactly what goes out once approved). */
export async function getMessageSource(actor: Actor, id: string): Promise<{ raw: Buffer; sha256: string }> {
  await findMessage(actor, id);
  const [row] = await (await queryable()).select().from(messageSources).where(eq(messageSources.messageId, id));
  if (!row) throw notFound("message source", id);
  return { raw: Buffer.from(row.raw), sha256: row.sha256 };
}

/** The source as a download, never rendered by a browser in the app's origin. */
export function sourceResponse(id: string, { raw, sha256 }: { raw: Buffer; sha256: string }): Response {
  return new Response(new Uint8Array(raw), {
    headers: {
      "content-type": "message/rfc822",
      "content-length": String(raw.length),
      "content-disposition": `attachment; filename="${id}.eml"`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      etag: `"${sha256}"`,
    },
  });
}
