-- 0002_tracker: what the poller and the poster remember about the tracker.
--
-- url/version: the base URL whose GET /rest/version said it is a Bugzilla,
-- so that the check costs a request only when the URL changes (a no-change
-- poll stays one request).  watch: a fingerprint of the watch settings the
-- poll cursor belongs to; when they change, the next poll is a full one.
-- recheck: bugs fetched in the same second as their last change (by the
-- answer's Date header): a second change in that second would not move
-- last_change_time, so they are fetched once more next cycle.
-- hold_*: set when the tracker refused our credentials (codes 306, 410):
-- the whole outbox waits until the (url, key) fingerprint changes.
CREATE TABLE tracker_state (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	url         TEXT,
	version     TEXT,
	watch       TEXT,
	recheck     TEXT NOT NULL DEFAULT '',
	hold_config TEXT,
	hold_reason TEXT,
	hold_since  INTEGER
);
INSERT INTO tracker_state (id) VALUES (1);
