import { AppError } from "../../platform/errors";

/** The refusal when an agent-bound key asks for more than its agent's ceiling (holds and leases alike). */
export const aboveCeiling = (asked: number, max: number) =>
  new AppError("priority_above_ceiling", `Priority ${asked} is above this agent's ceiling of ${max}.`, {
    max_priority: max,
    errors: [{ field: "priority", message: `at most ${max} for this agent` }],
  });
