CREATE TABLE "message_labels" (
	"workspace_id" text NOT NULL,
	"message_id" text NOT NULL,
	"label" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_labels_message_id_label_pk" PRIMARY KEY("message_id","label")
);
--> statement-breakpoint
CREATE TABLE "thread_labels" (
	"workspace_id" text NOT NULL,
	"thread_id" text NOT NULL,
	"label" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "thread_labels_thread_id_label_pk" PRIMARY KEY("thread_id","label")
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "extracted_text" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "extracted_html" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "extraction_fallback" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "unread" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "message_labels" ADD CONSTRAINT "message_labels_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_labels" ADD CONSTRAINT "message_labels_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "thread_labels" ADD CONSTRAINT "thread_labels_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "thread_labels" ADD CONSTRAINT "thread_labels_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_labels_label_idx" ON "message_labels" USING btree ("workspace_id","label");--> statement-breakpoint
CREATE INDEX "thread_labels_label_idx" ON "thread_labels" USING btree ("workspace_id","label");--> statement-breakpoint
CREATE INDEX "messages_unread_idx" ON "messages" USING btree ("inbox_id","id") WHERE unread;