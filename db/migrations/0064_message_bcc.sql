-- Bcc on sent mail (issue #31): the Bcc recipients of an outbound message, kept on the row for the
-- workspace to see; they are never in the message's headers or stored source.
ALTER TABLE "messages" ADD COLUMN "bcc" jsonb DEFAULT '[]'::jsonb NOT NULL;