-- Source chunks are gzip already: stored out of line without a second compression attempt by TOAST.
ALTER TABLE "message_source_chunks" ALTER COLUMN "bytes" SET STORAGE EXTERNAL;
