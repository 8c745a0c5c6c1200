import type { AuditEntryRow } from "../../../db/schema";
import { hashedFields } from "../../platform/audit/chain";

/** The API shape is exactly the hashed fields plus the two hashes, so an export can be re-verified offline. */
export const serializeAuditEntry = (e: AuditEntryRow) => ({
  object: "audit_entry" as const,
  ...hashedFields(e),
  prev_hash: e.prevHash,
  hash: e.hash,
});
