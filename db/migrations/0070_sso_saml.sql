CREATE TABLE "sso_saml_assertions" (
	"connection_id" text NOT NULL,
	"assertion_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sso_saml_assertions_connection_id_assertion_id_pk" PRIMARY KEY("connection_id","assertion_id")
);
--> statement-breakpoint
CREATE TABLE "sso_saml_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"connection_id" text NOT NULL,
	"email" text NOT NULL,
	"next" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sso_connections" ALTER COLUMN "client_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "sso_connections" ALTER COLUMN "client_secret_sealed" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "protocol" text DEFAULT 'oidc' NOT NULL;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "saml_sso_url" text;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "saml_certificates" text[];--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "saml_metadata_url" text;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "saml_allow_idp_initiated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sso_saml_assertions" ADD CONSTRAINT "sso_saml_assertions_connection_id_sso_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."sso_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_saml_requests" ADD CONSTRAINT "sso_saml_requests_connection_id_sso_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."sso_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sso_saml_assertions_expires_idx" ON "sso_saml_assertions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "sso_saml_requests_expires_idx" ON "sso_saml_requests" USING btree ("expires_at");--> statement-breakpoint
ALTER TABLE "sso_connections" ADD CONSTRAINT "sso_connections_protocol_fields" CHECK (("sso_connections"."protocol" = 'oidc' and "sso_connections"."client_id" is not null and "sso_connections"."client_secret_sealed" is not null) or ("sso_connections"."protocol" = 'saml' and "sso_connections"."saml_sso_url" is not null and cardinality("sso_connections"."saml_certificates") > 0));