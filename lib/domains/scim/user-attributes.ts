import { z } from "zod";
import type { ScimUserRow } from "../../../db/schema";
import { scimError } from "./errors";
import { CORE_URN, scimBoolean, scimString, valueEntries, type PatchOp } from "./patch";

/** What AgentDraft keeps of a SCIM User; every other attribute an identity provider sends is accepted and not stored. */
export type UserAttributes = {
  userName: string;
  externalId: string | null;
  displayName: string | null;
  givenName: string | null;
  familyName: string | null;
  email: string;
  active: boolean;
};

const LIMITS = { userName: 254, externalId: 256, displayName: 200, name: 100, email: 254, emails: 20 } as const;
const emailShape = z.email();

function email(value: unknown, attr: string): string {
  const text = scimString(value, attr, LIMITS.email, false)!.toLowerCase();
  if (!emailShape.safeParse(text).success) throw scimError(400, "invalidValue", `${attr} is not an email address: AgentDraft needs each person's work email.`);
  return text;
}

/** The work email of an `emails` array: the primary one, else type work, else the first. */
function emailOf(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (!Array.isArray(value)) throw scimError(400, "invalidValue", "emails is an array of {value, type, primary}.");
  if (value.length > LIMITS.emails) throw scimError(400, "invalidValue", `emails has more than ${LIMITS.emails} entries.`);
  const items = value.filter((e): e is Record<string, unknown> => Boolean(e) && typeof e === "object");
  const pick = items.find((e) => e.primary === true || e.primary === "true" || e.primary === "True") ?? items.find((e) => String(e.type ?? "").toLowerCase() === "work") ?? items[0];
  return pick ? email(pick.value, "emails.value") : undefined;
}

/** A User resource (POST or PUT body) as the attributes AgentDraft keeps. The email is the primary email, else the userName when it is one. */
export function userFromResource(body: unknown): UserAttributes {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw scimError(400, "invalidSyntax", "Send a User resource: a JSON object with at least userName.");
  const r = body as Record<string, unknown>;
  const userName = scimString(r.userName, "userName", LIMITS.userName, false)!;
  const name = r.name && typeof r.name === "object" ? (r.name as Record<string, unknown>) : {};
  const fromEmails = emailOf(r.emails);
  const mail = fromEmails ?? (userName.includes("@") ? email(userName, "userName") : undefined);
  if (!mail) throw scimError(400, "invalidValue", "Send the person's work email in emails (or an email address as userName).");
  return {
    userName,
    externalId: r.externalId === undefined ? null : scimString(r.externalId, "externalId", LIMITS.externalId, true),
    displayName: r.displayName === undefined ? null : scimString(r.displayName, "displayName", LIMITS.displayName, true),
    givenName: name.givenName === undefined ? null : scimString(name.givenName, "name.givenName", LIMITS.name, true),
    familyName: name.familyName === undefined ? null : scimString(name.familyName, "name.familyName", LIMITS.name, true),
    email: mail,
    active: r.active === undefined ? true : scimBoolean(r.active, "active"),
  };
}

export const attributesOf = (row: ScimUserRow): UserAttributes => ({
  userName: row.userName,
  externalId: row.externalId,
  displayName: row.displayName,
  givenName: row.givenName,
  familyName: row.familyName,
  email: row.email,
  active: row.active,
});

/** The attributes after a PATCH's operations, in order. Paths AgentDraft does not keep (title, an extension's department) are accepted and ignored. */
export function applyUserPatch(current: UserAttributes, ops: PatchOp[]): UserAttributes {
  const next = { ...current };
  for (const op of ops) {
    if (op.path === null) for (const [path, value] of valueEntries(op)) setAttribute(next, op.op, path, value);
    else setAttribute(next, op.op, op.path, op.value);
  }
  return next;
}

function setAttribute(next: UserAttributes, op: PatchOp["op"], path: string, value: unknown): void {
  const p = path.replace(CORE_URN, "").toLowerCase();
  const nullable = { externalid: "externalId", displayname: "displayName", "name.givenname": "givenName", "name.familyname": "familyName" } as const;
  if (op === "remove") {
    if (p in nullable) next[nullable[p as keyof typeof nullable]] = null;
    else if (p === "name") next.givenName = next.familyName = null;
    else if (p === "username" || p === "active" || p === "emails" || p.startsWith("emails[") || p === "emails.value") {
      throw scimError(400, "mutability", `${path} cannot be removed: AgentDraft needs a userName, an email and active.`);
    }
    return;
  }
  if (p === "active") next.active = scimBoolean(value, "active");
  else if (p === "username") next.userName = scimString(value, "userName", LIMITS.userName, false)!;
  else if (p === "externalid") next.externalId = scimString(value, "externalId", LIMITS.externalId, true);
  else if (p === "displayname") next.displayName = scimString(value, "displayName", LIMITS.displayName, true);
  else if (p === "name.givenname") next.givenName = scimString(value, "name.givenName", LIMITS.name, true);
  else if (p === "name.familyname") next.familyName = scimString(value, "name.familyName", LIMITS.name, true);
  else if (p === "name") {
    if (!value || typeof value !== "object") throw scimError(400, "invalidValue", "name is an object {givenName, familyName}.");
    const n = value as Record<string, unknown>;
    if (n.givenName !== undefined) next.givenName = scimString(n.givenName, "name.givenName", LIMITS.name, true);
    if (n.familyName !== undefined) next.familyName = scimString(n.familyName, "name.familyName", LIMITS.name, true);
  } else if (p === "emails") next.email = emailOf(value) ?? next.email;
  else if (p === "emails.value" || /^emails\[(type eq "work"|primary eq true)\]\.value$/i.test(p)) next.email = email(value, path);
}

/** The name shown for the member: the displayName, else given and family names. */
export const memberName = (a: UserAttributes): string | null => a.displayName ?? ([a.givenName, a.familyName].filter(Boolean).join(" ") || null);
