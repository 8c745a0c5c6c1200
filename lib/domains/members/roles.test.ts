import { describe, expect, it } from "vitest";
import { assertRole, hasRole } from "./roles";

describe("roles", () => {
  it("orders viewer < approver < admin < owner", () => {
    expect(hasRole("owner", "admin")).toBe(true);
    expect(hasRole("admin", "admin")).toBe(true);
    expect(hasRole("approver", "admin")).toBe(false);
    expect(hasRole("approver", "viewer")).toBe(true);
    expect(hasRole("viewer", "approver")).toBe(false);
  });

  it("refuses a role that is too low with a forbidden error that says what is needed", () => {
    expect(() => assertRole("viewer", "admin", "create API keys")).toThrow(/Your role \(viewer\) cannot create API keys: it needs admin/);
    try {
      assertRole("viewer", "admin");
    } catch (err) {
      expect(err).toMatchObject({ code: "forbidden", status: 403 });
    }
    expect(() => assertRole("owner", "admin")).not.toThrow();
  });
});
