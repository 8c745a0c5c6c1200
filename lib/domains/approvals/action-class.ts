import { AppError } from "../../platform/errors";

/**
 * What an approval is for, decided by the server from the action a person sees and approves, not
 * from the labels the asking agent chooses (#48): the action's own `type` is its class, and its own
 * numeric `amount` its amount. An agent that labels a refund as something else, or leaves the
 * label off, is judged by the rule for refunds all the same.
 */
export function actionFacts(action: Record<string, unknown> | null | undefined): { actionClass?: string; amount?: number } {
  if (!action) return {};
  const type = typeof action.type === "string" && action.type.trim() !== "" ? action.type.trim() : undefined;
  const amount = typeof action.amount === "number" && Number.isFinite(action.amount) ? action.amount : undefined;
  return { actionClass: type, amount };
}

/**
 * The class and amount an approval is opened for: the action's own where it states them, the
 * declared ones otherwise. A declared class or amount that contradicts the action's is refused
 * (400), so nobody approves a label that differs from what will be done.
 */
export function approvalFacts(input: { action?: Record<string, unknown> | null; action_class?: string; amount?: number }): { actionClass?: string; amount?: number } {
  const seen = actionFacts(input.action);
  if (seen.actionClass !== undefined && input.action_class !== undefined && seen.actionClass !== input.action_class) {
    throw new AppError("validation_failed", `action_class "${input.action_class}" contradicts the action's own type "${seen.actionClass}": the action's type is its class. Leave action_class out, or make them agree.`, {
      errors: [{ field: "action_class", message: `must equal action.type ("${seen.actionClass}")` }],
    });
  }
  if (seen.amount !== undefined && input.amount !== undefined && seen.amount !== input.amount) {
    throw new AppError("validation_failed", `amount ${input.amount} contradicts the action's own amount ${seen.amount}. Leave amount out, or make them agree.`, {
      errors: [{ field: "amount", message: `must equal action.amount (${seen.amount})` }],
    });
  }
  return { actionClass: seen.actionClass ?? input.action_class, amount: seen.amount ?? input.amount };
}
