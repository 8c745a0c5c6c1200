import { timingSafeEqual, createHash } from "node:crypto";
import { AppError } from "../../../platform/errors";
import { env } from "../../../platform/config/env";
import { ingestMessage, rejectOversizeMail } from "./ingest-message";

/** Bearer INBOUND_SECRET, compared in constant time. Unset secret: the endpoint is closed. */
export function checkInboundSecret(authorization: string | null): void {
  const secret = env().INBOUND_SECRET;
  if (!secret) {
    throw new AppError("service_unavailable", "Raw inbound mail is disabled: set INBOUND_SECRET (16+ characters) on the server to enable POST /api/inbound/raw.");
  }
  const given = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1] ?? "";
  const digest = (s: string) => createHash("sha256").update(s).digest();
  if (!given || !timingSafeEqual(digest(given), digest(secret))) {
    throw new AppError("unauthorized", "Send `Authorization: Bearer <INBOUND_SECRET>`.", {}, { "www-authenticate": 'Bearer realm="agentdraft-inbound"' });
  }
}

/** Reads at most `limit` bytes; past that, stops and reports the message as oversize. */
async function readMail(req: Request, limit: number): Promise<{ raw: Buffer; oversize: boolean; size: number }> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  const chunks: Buffer[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size <= limit + 1) chunks.push(Buffer.from(value));
      if (size > limit) {
        reader.releaseLock();
        break;
      }
    }
  }
  const raw = Buffer.concat(chunks);
  return { raw, oversize: size > limit || (Number.isFinite(declared) && declared > limit), size: Math.max(size, Number.isFinite(declared) ? declared : 0) };
}

/** POST /api/inbound/raw?to=ADDRESS[,ADDRESS]: raw RFC 5322 in, deliveries out. */
export async function receiveRaw(req: Request) {
  checkInboundSecret(req.headers.get("authorization"));
  const url = new URL(req.url);
  const recipients = url.searchParams.getAll("to").flatMap((t) => t.split(",")).map((t) => t.trim().toLowerCase()).filter(Boolean);
  const { raw, oversize, size } = await readMail(req, env().MAIL_MAX_BYTES);
  if (oversize) return rejectOversizeMail(raw, size, { recipients, source: "raw" });
  const deliveries = await ingestMessage(raw, { recipients, source: "raw" });
  return { object: "inbound_result" as const, deliveries };
}
