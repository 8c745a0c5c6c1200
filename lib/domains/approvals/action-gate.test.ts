import { describe, expect, it } from "vitest";
import { PgDialect } from "drizzle-orm/pg-core";
import { compileFixed } from "../../../db/compile-fixed";
import { noRuleNames, type GatedAction } from "./action-gate";
import type { Actor } from "../../platform/actor";

describe("the taint guard of the one-statement path", () => {
  it("is fixed text (compiled in one pass, as drizzle would), so it rides in the action's named statement", () => {
    const actor = { type: "key", id: "key_1", workspaceId: "ws_1", agentId: "agt_1" } as unknown as Actor & { type: "key" };
    const hold: GatedAction = { actionClass: "hold.place", priority: 50, action: {}, summary: "", noun: "hold", oneStatement: true };
    const lease: GatedAction = { ...hold, actionClass: "lease.acquire", noun: "lease", resource: "deploy:prod" };
    for (const gated of [hold, lease]) {
      const q = noRuleNames(actor, gated);
      const drizzle = new PgDialect().sqlToQuery(q);
      expect(compileFixed(q)).toEqual({ sql: drizzle.sql, params: drizzle.params });
    }
  });
});
