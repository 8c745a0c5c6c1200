import { z } from "zod";
import { ID_PREFIXES, type IdKind } from "../ids";

/** How an id kind reads in a message: `handoffClaim` → "handoff claim". */
const label = (kind: IdKind) => kind.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);

/** The exact shape of an id of one kind: its prefix, then 26 Crockford base32 characters (lib/platform/ids.ts). */
export const idPattern = (kind: IdKind) => new RegExp(`^${ID_PREFIXES[kind]}_[0-9a-hjkmnp-tv-z]{26}$`);

/**
 * A request field that names a resource by id (`agent_id`, `calendar_ids[]`...). Its shape is
 * checked with the rest of the request, before any query runs: junk (`"0000-00-00"`, `"NaN"`,
 * another kind's id) is a 400 naming the field, never a lookup. The OpenAPI document shows it as
 * a `pattern`, so clients and the fuzz test know which fields are ids.
 */
export function idField(kind: IdKind) {
  const prefix = ID_PREFIXES[kind];
  const what = label(kind);
  return z.string().regex(idPattern(kind), `must be ${/^[aeiou]/.test(what) ? "an" : "a"} ${what} id (${prefix}_ and 26 characters)`);
}
