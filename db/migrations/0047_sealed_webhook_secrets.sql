-- Webhook endpoint secrets are stored sealed (AES-256-GCM under AGENTDRAFT_ENCRYPTION_KEYS,
-- `v1.<key id>.<iv>.<ciphertext>`), like every other secret at rest. The database cannot seal
-- (the key never lives in it): `agentdraft db migrate` seals the existing `whsec_...` rows right
-- after this migration, in small batches (lib/webhooks/seal-plain-secrets.ts), and the code reads
-- both forms meanwhile, so an upgrade stops no delivery. The check accepts both: instances of the
-- previous release still write `whsec_...` during a rolling deploy; the next `db migrate` seals them.
-- NOT VALID then VALIDATE: no scan under the exclusive lock.
ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_secret_check";--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_secret_check" CHECK ("webhook_endpoints"."secret" like 'v1.%' or "webhook_endpoints"."secret" like 'whsec_%') NOT VALID;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" VALIDATE CONSTRAINT "webhook_endpoints_secret_check";
