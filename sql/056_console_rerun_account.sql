-- Several provider accounts (issue 41), continued: a console rerun is one account's day. The worker
-- claims the row later, maybe in another console process, so the account has to be stored on it (the
-- request that queued it is gone by then). Reruns queued before belong to the one account there was,
-- "default" (as in 052: a constant default costs no table rewrite); with one account every rerun is it.
ALTER TABLE console_reruns ADD COLUMN account_id text NOT NULL DEFAULT 'default';
