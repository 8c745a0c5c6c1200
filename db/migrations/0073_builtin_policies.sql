ALTER TABLE "approval_policies" ADD COLUMN "builtin" text;--> statement-breakpoint
CREATE UNIQUE INDEX "approval_policies_builtin_key" ON "approval_policies" USING btree ("workspace_id","builtin") WHERE "approval_policies"."builtin" is not null;--> statement-breakpoint
-- Every workspace is protected from the start (issue #48): while an agent is tainted (it read mail
-- from outside, lib/domains/taint), a person decides its mail to someone the workspace does not trust,
-- its webhook endpoint changes, its leases and its holds above priority 50. These are the built-in
-- rules as of this migration, for workspaces that exist now; new workspaces get them from
-- lib/domains/approvals/builtin-policies.ts (BUILTIN_POLICIES), in the transaction that creates them.
INSERT INTO "approval_policies" ("id", "workspace_id", "name", "action_class", "new_recipients", "untrusted_trace", "min_priority", "required_approvals", "expires_in_seconds", "builtin")
SELECT agentdraft_new_id('apol'), w.id, b.name, b.action_class, b.new_recipients, true, b.min_priority, 1, 86400, b.builtin
FROM "workspaces" w
CROSS JOIN (VALUES
  ('mail', 'Built-in: mail to someone untrusted, after untrusted mail', 'email.send', true, NULL::integer),
  ('webhooks', 'Built-in: webhook endpoint changes, after untrusted mail', 'webhook_endpoint.change', false, NULL::integer),
  ('leases', 'Built-in: leases, after untrusted mail', 'lease.acquire', false, NULL::integer),
  ('holds', 'Built-in: holds above priority 50, after untrusted mail', 'hold.place', false, 51)
) AS b(builtin, name, action_class, new_recipients, min_priority)
ON CONFLICT DO NOTHING;
