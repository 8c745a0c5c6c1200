-- Custom SQL migration: extensions drizzle cannot declare.
-- btree_gist lets exclusion constraints mix equality (calendar_id) with range overlap (&&).
-- PGlite must be opened with the btree_gist extension loaded for this to succeed.
CREATE EXTENSION IF NOT EXISTS btree_gist;
