import { queryable } from "../../../db/transaction";
import { users } from "../../../db/schema";

/** First run is open until the first person has an account; after that, members join by invitation. */
export async function isSetupOpen(): Promise<boolean> {
  const q = await queryable();
  const rows = await q.select({ id: users.id }).from(users).limit(1);
  return rows.length === 0;
}
