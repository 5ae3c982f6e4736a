-- A sign-in attempt is reserved (a pending row) before its password is verified, so guesses still
-- being verified count against the throttle: a burst of parallel guesses cannot all read "no failures
-- yet". A wrong password settles the row (pending false); a right one deletes it. Rows from before
-- this migration are settled failures.
ALTER TABLE console_login_failures ADD COLUMN pending boolean NOT NULL DEFAULT false;
