import { z } from "zod";
import { NOTIFICATION_CHANNEL_KINDS, NOTIFICATION_TYPES } from "../../../db/schema";
import { isTimeZone } from "../../platform/time/zoned";
import { parseClock } from "./routing";

/** A form's checkbox list: absent (nothing ticked), one value, or several. */
const list = <T extends z.ZodType>(item: T) => z.preprocess((v) => (v === undefined || v === "" ? [] : Array.isArray(v) ? v : [v]), z.array(item).max(20));
const checkbox = z.preprocess((v) => v === "on" || v === "true" || v === true, z.boolean());
const clock = z
  .string()
  .trim()
  .optional()
  .transform((v, ctx) => {
    const m = parseClock(v);
    if (Number.isNaN(m)) {
      ctx.addIssue({ code: "custom", message: "a time such as 22:00 (24-hour), or empty" });
      return z.NEVER;
    }
    return m;
  });

/** The rules and settings shared by creating and editing a channel (web app forms). */
const settings = {
  name: z.string().trim().min(1, "give the channel a name").max(80),
  slack_channel_id: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[CG][A-Z0-9]{6,20}$/, "a Slack channel id such as C0123456789 (channel details → About)")
    .optional()
    .or(z.literal("").transform(() => undefined)),
  notification_types: list(z.enum(NOTIFICATION_TYPES, { message: "unknown notification type" })),
  action_classes: z
    .string()
    .trim()
    .max(1000)
    .optional()
    .transform((v) => {
      const classes = [...new Set((v ?? "").split(",").map((s) => s.trim()).filter(Boolean))];
      return classes.length ? classes : null;
    })
    .refine((v) => !v || v.every((c) => c.length <= 64), "each action class has at most 64 characters"),
  min_amount: z.union([z.literal("").transform(() => null), z.coerce.number().min(0, "0 or more").max(1e12)]).optional().transform((v) => (v === undefined ? null : v)),
  quiet_start: clock,
  quiet_end: clock,
  time_zone: z
    .string()
    .trim()
    .max(64)
    .default("UTC")
    .transform((v) => v || "UTC")
    .refine(isTimeZone, "an IANA time zone such as Europe/Berlin"),
  include_evidence: checkbox,
  dm_approvers: checkbox,
};

const quietPaired = (v: { quiet_start: number | null; quiet_end: number | null }) => (v.quiet_start === null) === (v.quiet_end === null);
const QUIET_MESSAGE = { message: "give both the start and the end of quiet hours, or neither", path: ["quiet_end"] };

export const createChannelInput = z
  .object({
    kind: z.enum(NOTIFICATION_CHANNEL_KINDS, { message: "choose Slack, Microsoft Teams or Discord" }),
    secret: z.string().trim().min(1, "required").max(2000),
    ...settings,
  })
  .refine(quietPaired, QUIET_MESSAGE)
  .refine((v) => v.kind !== "slack" || v.slack_channel_id, { message: "required for Slack", path: ["slack_channel_id"] });
export type CreateChannelInput = z.output<typeof createChannelInput>;

/** Editing: an empty secret keeps the stored one (it is never shown again). */
export const updateChannelInput = z
  .object({ channel_id: z.string().min(1), secret: z.string().trim().max(2000).optional(), ...settings })
  .refine(quietPaired, QUIET_MESSAGE);
export type UpdateChannelInput = z.output<typeof updateChannelInput>;

/** A channel as the API shows it: never its secret. */
export const channelSchema = z
  .object({
    object: z.literal("notification_channel"),
    id: z.string(),
    kind: z.enum(NOTIFICATION_CHANNEL_KINDS),
    name: z.string(),
    slack_channel_id: z.string().nullable(),
    notification_types: z.array(z.enum(NOTIFICATION_TYPES)),
    action_classes: z.array(z.string()).nullable().describe("null: every action class"),
    min_amount: z.number().nullable(),
    quiet_hours: z.object({ start: z.string(), end: z.string(), time_zone: z.string() }).nullable(),
    include_evidence: z.boolean(),
    dm_approvers: z.boolean(),
    enabled: z.boolean(),
    status: z.enum(["healthy", "failing", "failed", "disabled"]).describe("failing: its last attempt failed and will be retried; failed: a message gave up"),
    last_error: z.string().nullable(),
    failing_since: z.string().nullable(),
    last_success_at: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "NotificationChannel" });
