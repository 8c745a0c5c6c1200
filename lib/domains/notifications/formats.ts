import { clamp, escapeDiscord, escapeSlack, escapeTeams } from "./escape";
import type { Notice, NoticeTone } from "./notice";

/** A summary is one line of at most this many characters in every app (the queue has the rest). */
const SUMMARY_MAX = 500;
const VALUE_MAX = 300;
const NOTE_MAX = 1000;

/** Slack: Block Kit blocks, with `text` as the notification's fallback (mrkdwn, escaped as well). */
export function slackMessage(n: Notice): { text: string; blocks: Record<string, unknown>[] } {
  const mrkdwn = (text: string) => ({ type: "mrkdwn", text });
  const blocks: Record<string, unknown>[] = [{ type: "header", text: { type: "plain_text", text: clamp(n.title, 150) } }];
  if (n.summary) blocks.push({ type: "section", text: mrkdwn(escapeSlack(clamp(n.summary, SUMMARY_MAX))) });
  if (n.fields.length) blocks.push({ type: "section", fields: n.fields.slice(0, 10).map((f) => mrkdwn(`*${f.label}*\n${escapeSlack(clamp(f.value, VALUE_MAX))}`)) });
  if (n.note) blocks.push({ type: "section", text: mrkdwn(`*Note*\n${escapeSlack(clamp(n.note, NOTE_MAX))}`) });
  if (n.evidence) blocks.push({ type: "section", text: mrkdwn(`*Evidence*\n\`\`\`${escapeSlack(n.evidence).replace(/```/g, "`\u200b``")}\`\`\``) });
  blocks.push({ type: "section", text: mrkdwn(`<${n.link.url}|${escapeSlack(n.link.label)}>`) });
  blocks.push({ type: "context", elements: [mrkdwn(escapeSlack(n.footer))] });
  const text = `${escapeSlack(n.title)}${n.summary ? `: ${escapeSlack(clamp(n.summary, SUMMARY_MAX))}` : ""}`;
  return { text, blocks };
}

const DISCORD_COLOURS: Record<NoticeTone, number> = { amber: 0xd97706, green: 0x15803d, red: 0xb91c1c, slate: 0x64748b };

/** Discord: one embed; `allowed_mentions` with nothing to parse, so no text in it can ping anyone. */
export function discordMessage(n: Notice, at: Date = new Date()) {
  const fence = (s: string) => s.replace(/```/g, "`\u200b``");
  const description = [
    n.summary ? escapeDiscord(clamp(n.summary, SUMMARY_MAX)) : null,
    n.note ? `**Note:** ${escapeDiscord(clamp(n.note, NOTE_MAX))}` : null,
    n.evidence ? `**Evidence**\n\`\`\`json\n${fence(n.evidence)}\n\`\`\`` : null,
    `[${n.link.label}](${n.link.url})`,
  ]
    .filter(Boolean)
    .join("\n\n");
  return {
    content: "",
    embeds: [
      {
        title: clamp(n.title, 256),
        url: n.link.url,
        description,
        color: DISCORD_COLOURS[n.tone],
        fields: n.fields.slice(0, 25).map((f) => ({ name: f.label, value: escapeDiscord(clamp(f.value, VALUE_MAX)) || "—", inline: true })),
        footer: { text: clamp(n.footer, 2048) },
        timestamp: at.toISOString(),
      },
    ],
    allowed_mentions: { parse: [] as string[] },
  };
}

const TEAMS_COLOURS: Record<NoticeTone, string> = { amber: "Warning", green: "Good", red: "Attention", slate: "Default" };

/** Microsoft Teams (incoming webhook / Workflows): a message with one Adaptive Card attachment. */
export function teamsMessage(n: Notice) {
  const text = (t: string, extra: Record<string, unknown> = {}) => ({ type: "TextBlock", text: t, wrap: true, ...extra });
  const body: Record<string, unknown>[] = [text(clamp(n.title, 200), { weight: "Bolder", size: "Medium", color: TEAMS_COLOURS[n.tone] })];
  if (n.summary) body.push(text(escapeTeams(clamp(n.summary, SUMMARY_MAX))));
  if (n.fields.length) body.push({ type: "FactSet", facts: n.fields.map((f) => ({ title: f.label, value: escapeTeams(clamp(f.value, VALUE_MAX)) })) });
  if (n.note) body.push(text(`Note: ${escapeTeams(clamp(n.note, NOTE_MAX))}`));
  if (n.evidence) body.push(text(escapeTeams(n.evidence), { fontType: "Monospace", size: "Small" }));
  body.push(text(n.footer, { isSubtle: true, size: "Small" }));
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body,
          actions: [{ type: "Action.OpenUrl", title: n.link.label, url: n.link.url }],
        },
      },
    ],
  };
}
