-- 0019_ours: a comment is ours only when the bot's account wrote it, and
-- the commands in comments are answered (issue 31).
--
-- Until now a comment by anyone that carried a line "bugbridge-<word>:"
-- was stored as ours (comments.is_ours = 1): the bug page styled it as the
-- bot's, stale bugs and owners skipped it, its diff was no candidate and
-- its commands were dropped.  tracker/bot.c now decides by the author
-- alone, against the bot's login: [tracker] login, else what the tracker
-- said for the (url, key) whose fingerprint is bot_key, kept here:
-- bot_login, bot_how ('whoami'; 'posted': the author of a comment whose id
-- our own post got back; 'valid_login'), bot_whoami (1: the tracker has
-- GET /rest/whoami, 0: it lacks it (5.0, 5.2), NULL: not asked yet).
-- ours_login: the login every comment's is_ours was last computed for
-- (NULL: never); when the bot's login is known and differs, is_ours is
-- computed again for every stored comment.
ALTER TABLE tracker_state ADD COLUMN bot_login TEXT;
ALTER TABLE tracker_state ADD COLUMN bot_how TEXT;
ALTER TABLE tracker_state ADD COLUMN bot_whoami INTEGER;
ALTER TABLE tracker_state ADD COLUMN bot_key TEXT;
ALTER TABLE tracker_state ADD COLUMN ours_login TEXT;

-- What can be said without the configuration: the bot wrote the comments
-- whose ids its own posts got back; any other author's "ours" came from a
-- typed marker.  Such a comment is history by now: it is marked handled, so
-- that a command in it is not acted on late (the first poll then computes
-- is_ours again with the bot's login).
UPDATE comments SET is_ours = 0, handled = 1 WHERE is_ours = 1 AND author NOT IN
	(SELECT c.author FROM comments c JOIN outbox o ON o.remote_id = c.id
	 WHERE o.kind = 'comment' AND o.state = 'sent');

-- asked_in: the tracker comment whose command queued the job
-- (triage/commands_*.c), NULL for the others.  The command's answer said
-- so already, so [triage] acknowledge posts no "queued" comment for it.
ALTER TABLE jobs ADD COLUMN asked_in INTEGER;
