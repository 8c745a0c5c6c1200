import { describe, expect, it } from "vitest";
import { AppError } from "../../platform/errors";
import { parseFilter } from "./filter";
import { parsePatch } from "./patch";
import { applyUserPatch, userFromResource, type UserAttributes } from "./user-attributes";

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return { status: (err as AppError).status, scimType: (err as AppError).extra.scimType, message: (err as AppError).message };
  }
  throw new Error("expected a refusal");
};

describe("parseFilter", () => {
  it("reads the filters Okta and Entra ID send", () => {
    expect(parseFilter('userName eq "ada@example.test"')).toEqual([{ attr: "username", value: "ada@example.test" }]);
    expect(parseFilter('externalId eq "0f3c-11"')).toEqual([{ attr: "externalid", value: "0f3c-11" }]);
    expect(parseFilter('displayName eq "agentdraft-admin"')).toEqual([{ attr: "displayname", value: "agentdraft-admin" }]);
    expect(parseFilter('urn:ietf:params:scim:schemas:core:2.0:User:userName EQ "x" and active eq true')).toEqual([
      { attr: "username", value: "x" },
      { attr: "active", value: true },
    ]);
    expect(parseFilter('userName eq "quote \\" and and"')).toEqual([{ attr: "username", value: 'quote " and and' }]);
    expect(parseFilter('(userName eq "a")')).toEqual([{ attr: "username", value: "a" }]);
  });

  it("refuses what it does not understand with 400 invalidFilter", () => {
    for (const bad of [
      'userName co "a"',
      'userName eq "a" or userName eq "b"',
      "userName eq",
      'userName eq "a" and',
      'eq "a"',
      "userName eq unquoted",
      'userName eq "unterminated',
      'emails[type eq "work"] eq "x"',
      `userName eq "${"x".repeat(1000)}"`,
      Array.from({ length: 11 }, (_, i) => `userName eq "${i}"`).join(" and "),
    ]) {
      expect(refusal(() => parseFilter(bad)), bad).toMatchObject({ status: 400, scimType: "invalidFilter" });
    }
  });
});

describe("PATCH operations", () => {
  const ada: UserAttributes = { userName: "ada@example.test", externalId: null, displayName: "Ada", givenName: "Ada", familyName: "Lovelace", email: "ada@example.test", active: true };

  it("applies Okta's path-less replace and Entra ID's capitalised ops, string booleans and dotted keys", () => {
    expect(applyUserPatch(ada, parsePatch({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", value: { active: false } }] }))).toMatchObject({ active: false });
    const entra = parsePatch({
      Operations: [
        { op: "Replace", path: "active", value: "False" },
        { op: "Replace", path: "displayName", value: "Ada L." },
        { op: "Add", path: 'emails[type eq "work"].value', value: "Ada.L@Example.test" },
        { op: "Replace", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", value: "Ops" },
        { op: "Replace", value: { "name.familyName": "King", "urn:ietf:params:scim:schemas:core:2.0:User:externalId": "e-1" } },
        { op: "Remove", path: "name.givenName" },
      ],
    });
    expect(applyUserPatch(ada, entra)).toEqual({ ...ada, active: false, displayName: "Ada L.", email: "ada.l@example.test", familyName: "King", externalId: "e-1", givenName: null });
  });

  it("refuses a malformed PATCH with the scimType the RFC names", () => {
    expect(refusal(() => parsePatch({ Operations: [] }))).toMatchObject({ status: 400, scimType: "invalidSyntax" });
    expect(refusal(() => parsePatch({ Operations: [{ op: "merge", path: "active", value: true }] }))).toMatchObject({ status: 400, scimType: "invalidSyntax" });
    expect(refusal(() => parsePatch({ Operations: [{ op: "remove" }] }))).toMatchObject({ status: 400, scimType: "noTarget" });
    expect(refusal(() => parsePatch({ Operations: [{ op: "replace", path: "a b", value: 1 }] }))).toMatchObject({ status: 400, scimType: "invalidPath" });
    expect(refusal(() => applyUserPatch(ada, parsePatch({ Operations: [{ op: "replace", path: "active", value: "maybe" }] })))).toMatchObject({ status: 400, scimType: "invalidValue" });
    expect(refusal(() => applyUserPatch(ada, parsePatch({ Operations: [{ op: "remove", path: "userName" }] })))).toMatchObject({ status: 400, scimType: "mutability" });
    expect(refusal(() => parsePatch({ Operations: Array.from({ length: 101 }, () => ({ op: "replace", path: "active", value: true })) }))).toMatchObject({ status: 400 });
  });
});

describe("userFromResource", () => {
  it("takes the primary email, else the userName when it is an address, and refuses a person without one", () => {
    expect(userFromResource({ userName: "u1", emails: [{ value: "other@x.test" }, { value: "Main@X.test", primary: true }] }).email).toBe("main@x.test");
    expect(userFromResource({ userName: "Ada@X.test" })).toMatchObject({ email: "ada@x.test", active: true });
    expect(refusal(() => userFromResource({ userName: "ada" }))).toMatchObject({ status: 400, scimType: "invalidValue" });
    expect(refusal(() => userFromResource({ userName: "x".repeat(255) }))).toMatchObject({ status: 400, scimType: "invalidValue" });
    expect(refusal(() => userFromResource([]))).toMatchObject({ status: 400, scimType: "invalidSyntax" });
  });
});
