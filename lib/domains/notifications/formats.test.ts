// @suite moved-clock
import { describe, expect, it } from "vitest";
import { escapeDiscord, escapeSlack, escapeTeams } from "./escape";
import { discordMessage, slackMessage, teamsMessage } from "./formats";
import { approvalNotice, type ApprovalFacts } from "./notice";
import { quietUntil, routesTo } from "./routing";

const now = new Date("2026-12-01T10:00:00Z");
const facts = (extra: Partial<ApprovalFacts> = {}): ApprovalFacts => ({
  id: "appr_1",
  summary: "Refund order A-1",
  status: "pending",
  escalated: false,
  agentName: "refund-bot",
  actionClass: "refund",
  amount: "120.0000",
  currency: "EUR",
  createdAt: new Date(now.getTime() - 5 * 60_000),
  expiresAt: new Date(now.getTime() + 3 * 3_600_000),
  decidedAt: null,
  decidedBy: [],
  note: null,
  evidence: { card: "4242 4242 4242 4242" },
  ...extra,
});
const notice = (extra: Partial<ApprovalFacts> = {}, includeEvidence = false) => approvalNotice(facts(extra), { origin: "https://app.test", now, includeEvidence });
const HOSTILE = "<!channel> <!here> <http://evil.test|click> [x](http://evil.test) @everyone @here <@123> <#456> **bold** `code`";

describe("escaping", () => {
  it("Slack: the control characters become entities, so no mention, link or special command survives", () => {
    const out = escapeSlack(HOSTILE);
    expect(out).not.toMatch(/[<>]/);
    expect(out).toContain("&lt;!channel&gt;");
    expect(escapeSlack("a & b")).toBe("a &amp; b");
  });
  it("Discord: link syntax, emphasis, tags and @mentions are inert", () => {
    const out = escapeDiscord(HOSTILE);
    expect(out).not.toContain("[x](");
    expect(out).not.toContain("<@123>");
    expect(out).not.toContain("**");
    expect(out).not.toMatch(/@everyone|@here/);
  });
  it("Teams: link syntax, emphasis and @mentions are inert", () => {
    const out = escapeTeams(HOSTILE);
    expect(out).not.toContain("[x](");
    expect(out).not.toContain("**");
    expect(out).not.toMatch(/@everyone/);
  });
});

describe("formats", () => {
  it("a request carries summary, agent, action class and amount, age, expiry and the queue link, and says decisions are made signed in", () => {
    const n = notice();
    expect(n.fields).toEqual([
      { label: "Agent", value: "refund-bot" },
      { label: "Action", value: "refund · 120 EUR" },
      { label: "Asked", value: "5 min ago (2026-12-01 09:55 UTC)" },
      { label: "Expires", value: "in 3 h (2026-12-01 13:00 UTC)" },
    ]);
    expect(n.link.url).toBe("https://app.test/approvals");
    for (const out of [slackMessage(n), discordMessage(n, now), teamsMessage(n)]) {
      const s = JSON.stringify(out);
      expect(s).toContain("Refund order A-1");
      expect(s).toContain("https://app.test/approvals");
      expect(s).toContain("cannot approve or deny");
      expect(s).not.toContain("4242");
    }
  });
  it("evidence appears only when the channel includes it", () => {
    expect(JSON.stringify(slackMessage(notice({}, true)))).toContain("4242");
    expect(JSON.stringify(discordMessage(notice({}, true), now))).toContain("4242");
    expect(JSON.stringify(teamsMessage(notice({}, true)))).toContain("4242");
  });
  it("a decision shows who decided and their note; an escalation says so", () => {
    const decided = notice({ status: "denied", decidedAt: now, decidedBy: ["Dana"], note: "no <!channel>" });
    expect(decided.title).toBe("Denied");
    const s = JSON.stringify(slackMessage(decided));
    expect(s).toContain("Dana");
    expect(s).toContain("no &lt;!channel&gt;");
    expect(notice({ escalated: true }).title).toContain("escalated");
    expect(notice({ expiresAt: new Date(now.getTime() - 1) }).title).toContain("Expired");
  });
  it("Slack blocks stay within Block Kit's limits for a long summary", () => {
    const { blocks } = slackMessage(notice({ summary: "x".repeat(10_000) }));
    for (const b of blocks) expect(JSON.stringify(b).length).toBeLessThan(3000);
  });
});

describe("routing and quiet hours", () => {
  const rules = { notificationTypes: ["approval.requested"], actionClasses: ["refund"], minAmount: "100.0000" };
  it("matches type, action class and minimum amount", () => {
    expect(routesTo(rules, "approval.requested", { actionClass: "refund", amount: "100" })).toBe(true);
    expect(routesTo(rules, "approval.requested", { actionClass: "refund", amount: "99.99" })).toBe(false);
    expect(routesTo(rules, "approval.requested", { actionClass: "refund", amount: null })).toBe(false);
    expect(routesTo(rules, "approval.requested", { actionClass: "deploy", amount: "500" })).toBe(false);
    expect(routesTo(rules, "approval.resolved", { actionClass: "refund", amount: "500" })).toBe(false);
    expect(routesTo({ ...rules, actionClasses: null, minAmount: null }, "approval.requested", { actionClass: null, amount: null })).toBe(true);
  });
  it("quiet hours wrap past midnight, in the channel's time zone", () => {
    const q = { quietStartMinute: 22 * 60, quietEndMinute: 7 * 60, timeZone: "America/New_York" };
    expect(quietUntil(q, new Date("2026-12-01T12:00:00Z"))).toBeNull(); // 07:00 in New York
    expect(quietUntil(q, new Date("2026-12-02T03:10:00Z"))?.toISOString()).toBe("2026-12-02T12:00:00.000Z"); // 22:10 → 07:00
    expect(quietUntil({ ...q, timeZone: "UTC", quietStartMinute: 60, quietEndMinute: 120 }, new Date("2026-12-01T01:30:20Z"))?.toISOString()).toBe("2026-12-01T02:00:00.000Z");
    expect(quietUntil({ ...q, quietStartMinute: null, quietEndMinute: null }, now)).toBeNull();
  });
});
