-- The rate-limit state need not survive a crash (a crash forgets a few tokens, never a hold):
-- unlogged, a request's token costs no WAL flush.
ALTER TABLE "rate_limit_buckets" SET UNLOGGED;
