import type { NotificationChannelKind } from "../../../db/schema";
import { AppError } from "../../platform/errors";
import { assertDeliverableUrl } from "../../platform/outbound/deliverable-url";

const invalid = (message: string) => new AppError("validation_failed", `secret: ${message}`, { errors: [{ field: "secret", message }] });

/** Discord's incoming-webhook URLs: /api[/vN]/webhooks/{id}/{token}. */
const DISCORD_PATH = /^\/api(\/v\d+)?\/webhooks\/\d+\/[\w-]+\/?$/;

/**
 * Checks a channel's secret before it is sealed: a Slack bot token must be one Slack accepts
 * (auth.test); a Teams or Discord webhook URL must be https (plain http only for the operator's
 * WEBHOOK_ALLOWED_HOSTS) and not point inside the network, as for webhook endpoints.
 * Returns the secret to store.
 */
export async function checkChannelSecret(kind: NotificationChannelKind, secret: string): Promise<string> {
  if (kind === "slack") {
    if (!/^xoxb-[\w-]+$/.test(secret)) throw invalid("a Slack bot token starts with xoxb- (OAuth & Permissions → Bot User OAuth Token)");
    const { slackClient } = await import("./providers");
    try {
      await slackClient(secret).auth.test();
    } catch (err) {
      const code = (err as { data?: { error?: string } }).data?.error;
      throw invalid(code ? `Slack refused this token (${code})` : `could not reach Slack to check the token: ${(err as Error).message}`);
    }
    return secret;
  }
  let url: string;
  try {
    url = assertDeliverableUrl(secret);
  } catch (err) {
    if (err instanceof AppError) throw invalid(err.extra.errors?.[0]?.message ?? err.message);
    throw invalid("not a URL");
  }
  if (kind === "discord" && !DISCORD_PATH.test(new URL(url).pathname)) throw invalid("a Discord webhook URL looks like https://discord.com/api/webhooks/{id}/{token}");
  return url;
}
