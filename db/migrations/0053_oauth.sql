CREATE TABLE "oauth_clients" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"registration" text NOT NULL,
	"name" text NOT NULL,
	"redirect_uris" text[] NOT NULL,
	"origins" text[] NOT NULL,
	"metadata" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"fetched_at" timestamp with time zone,
	CONSTRAINT "oauth_clients_registration_check" CHECK ("oauth_clients"."registration" in ('dynamic', 'metadata_document'))
);
--> statement-breakpoint
CREATE TABLE "oauth_codes" (
	"hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"user_id" text NOT NULL,
	"scopes" text[] NOT NULL,
	"redirect_uri" text NOT NULL,
	"code_challenge" text NOT NULL,
	"resource" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"api_key_id" text
);
--> statement-breakpoint
CREATE TABLE "oauth_tokens" (
	"hash" text PRIMARY KEY NOT NULL,
	"api_key_id" text NOT NULL,
	"kind" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "oauth_tokens_kind_check" CHECK ("oauth_tokens"."kind" in ('access', 'refresh'))
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "oauth_client_id" text;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_client_id_oauth_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."oauth_clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ADD CONSTRAINT "oauth_tokens_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_clients_client_id_key" ON "oauth_clients" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "oauth_codes_expires_idx" ON "oauth_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "oauth_tokens_key_idx" ON "oauth_tokens" USING btree ("api_key_id");--> statement-breakpoint
CREATE OR REPLACE FUNCTION agentdraft_admit(p_hash text, p_idempotency_key text, p_used_secs integer, p_key_rate float8, p_key_burst float8,
  p_ws_rate float8, p_ws_burst float8, p_take_key boolean, p_take_ws boolean)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  k api_keys;
  v_key_tokens float8;
  v_key_ok boolean;
  v_key_granted int;
  v_ws_tokens float8;
  v_ws_ok boolean;
  v_ws_granted int;
BEGIN
  SELECT * INTO k FROM api_keys WHERE hash = p_hash;
  IF NOT FOUND THEN
    -- An OAuth access token acts as its grant's key while it lives (expired: unknown, so 401).
    SELECT a.* INTO k FROM oauth_tokens t JOIN api_keys a ON a.id = t.api_key_id
     WHERE t.hash = p_hash AND t.kind = 'access' AND t.expires_at > now();
    IF NOT FOUND THEN RETURN NULL; END IF;
  END IF;
  IF k.revoked_at IS NOT NULL THEN RETURN jsonb_build_object('revoked', true); END IF;
  -- Most requests find last_used_at fresh and write nothing (the WHERE keeps racing twins to one write).
  IF k.last_used_at IS NULL OR k.last_used_at < now() - make_interval(secs => p_used_secs) THEN
    UPDATE api_keys SET last_used_at = now()
     WHERE id = k.id AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => p_used_secs));
  END IF;
  IF p_take_key OR p_take_ws THEN
    SELECT max(t.left_tokens) FILTER (WHERE t.name LIKE 'key:%'), bool_or(t.ok) FILTER (WHERE t.name LIKE 'key:%'), max(t.granted) FILTER (WHERE t.name LIKE 'key:%'),
           max(t.left_tokens) FILTER (WHERE t.name LIKE 'ws:%'), bool_or(t.ok) FILTER (WHERE t.name LIKE 'ws:%'), max(t.granted) FILTER (WHERE t.name LIKE 'ws:%')
      INTO v_key_tokens, v_key_ok, v_key_granted, v_ws_tokens, v_ws_ok, v_ws_granted
      FROM agentdraft_lease_tokens(ARRAY[CASE WHEN p_take_key THEN 'key:' || k.id END, CASE WHEN p_take_ws THEN 'ws:' || k.workspace_id END],
                                   ARRAY[p_key_rate, p_ws_rate], ARRAY[p_key_burst, p_ws_burst]) AS t;
  END IF;
  RETURN jsonb_build_object(
    'revoked', false, 'id', k.id, 'workspace_id', k.workspace_id, 'agent_id', k.agent_id, 'scopes', to_jsonb(k.scopes), 'mode', k.mode,
    'key_tokens', v_key_tokens, 'key_allowed', v_key_ok, 'key_granted', v_key_granted,
    'ws_tokens', v_ws_tokens, 'ws_allowed', v_ws_ok, 'ws_granted', v_ws_granted,
    'workspace_name', (SELECT w.name FROM workspaces w WHERE w.id = k.workspace_id),
    'agent', (SELECT to_jsonb(a) FROM agents a WHERE a.id = k.agent_id),
    'stored', CASE WHEN p_idempotency_key IS NULL THEN NULL ELSE
      (SELECT jsonb_build_object('requestHash', s.request_hash, 'responseStatus', s.response_status, 'responseHeaders', s.response_headers,
                                 'responseBody', s.response_body, 'result', s.result)
         FROM idempotency_keys s WHERE s.api_key_id = k.id AND s.key = p_idempotency_key AND s.expires_at > now()) END);
END $$;
--> statement-breakpoint
ALTER FUNCTION agentdraft_admit(text, text, integer, double precision, double precision, double precision, double precision, boolean, boolean) SET plan_cache_mode = force_generic_plan;
