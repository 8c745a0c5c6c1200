import type { z } from "zod";
import type { MemberRole } from "../members";
import { currentMember, type SignedInMember } from "./current-member";
import { actionError, runForMember, type ActionState } from "./form-action";

export * from "./form-action";

/**
 * Runs a server action for a signed-in member: the input guard (as the API's), the role, the form validated with
 * `schema`, calls `fn`, and turns failures into a message for the form (never a stack).
 * Every exported server action goes through this.
 */
export async function runMemberAction<S extends z.ZodType, T>(
  atLeast: MemberRole,
  doing: string,
  schema: S,
  input: unknown,
  fn: (m: SignedInMember, data: z.output<S>) => Promise<ActionState<T>>,
): Promise<ActionState<T>> {
  try {
    return await runForMember(await currentMember(), atLeast, doing, schema, input, fn);
  } catch (err) {
    return actionError(err);
  }
}
