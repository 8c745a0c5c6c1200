-- Files on drafts (issue #31): each draft lists its own attachments (filename, sniffed type, size,
-- sha256); the bytes are in attachment_blobs, once per workspace, as a sent message's are.
ALTER TABLE "drafts" ADD COLUMN "attachments" jsonb DEFAULT '[]'::jsonb NOT NULL;