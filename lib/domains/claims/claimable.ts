import { sql, type SQL } from "drizzle-orm";
import { messages } from "../../../db/schema";

/** A message no worker is handling: no live claim (by the database clock) and not completed. */
export const claimable: SQL = sql`not exists (select 1 from message_claims c where c.message_id = ${messages.id}
  and (c.status = 'completed' or (c.status = 'claimed' and c.expires_at > clock_timestamp())))`;
