-- 0001_init: the whole first cut of bugbridge's state.
-- Times are ISO-8601 UTC text ("2026-12-03T08:33:40Z") when they come from
-- the tracker, and integer Unix seconds (or real, for stage timing) when they
-- are our own clock.

-- Bugs as the tracker last showed them, plus our triage state.
CREATE TABLE bugs (
	id               INTEGER PRIMARY KEY,          -- tracker bug id
	product          TEXT NOT NULL DEFAULT '',
	component        TEXT NOT NULL DEFAULT '',
	status           TEXT NOT NULL DEFAULT '',
	resolution       TEXT NOT NULL DEFAULT '',
	is_open          INTEGER NOT NULL DEFAULT 1,
	summary          TEXT NOT NULL DEFAULT '',
	creator          TEXT NOT NULL DEFAULT '',
	assigned_to      TEXT NOT NULL DEFAULT '',
	whiteboard       TEXT NOT NULL DEFAULT '',
	keywords         TEXT NOT NULL DEFAULT '',      -- ", "-joined, sorted
	version          TEXT NOT NULL DEFAULT '',
	creation_time    TEXT NOT NULL DEFAULT '',
	last_change_time TEXT NOT NULL DEFAULT '',
	closed_time      TEXT,                          -- when it left the open statuses
	closed_by        TEXT,
	triage_state     TEXT NOT NULL DEFAULT 'new'
		CHECK (triage_state IN ('new', 'needs-repro', 'reproduced',
			'fix-candidate', 'fix-verified', 'not-reproducible', 'duplicate')),
	needs_attention  INTEGER NOT NULL DEFAULT 0,
	duplicate_of     INTEGER,
	first_seen       INTEGER NOT NULL DEFAULT (strftime('%s', 'now')),
	updated_at       INTEGER NOT NULL DEFAULT (strftime('%s', 'now'))
);
CREATE INDEX bugs_component ON bugs (component, is_open);
CREATE INDEX bugs_last_change ON bugs (last_change_time);

CREATE TABLE comments (
	id            INTEGER PRIMARY KEY,              -- tracker comment id
	bug_id        INTEGER NOT NULL REFERENCES bugs (id) ON DELETE CASCADE,
	count         INTEGER NOT NULL DEFAULT 0,       -- 0 is the description
	author        TEXT NOT NULL DEFAULT '',
	time          TEXT NOT NULL DEFAULT '',
	text          TEXT NOT NULL DEFAULT '',
	is_private    INTEGER NOT NULL DEFAULT 0,
	attachment_id INTEGER,
	is_ours       INTEGER NOT NULL DEFAULT 0,       -- carries a bugbridge marker
	handled       INTEGER NOT NULL DEFAULT 0        -- commands in it were acted on
);
CREATE INDEX comments_bug ON comments (bug_id, id);

CREATE TABLE attachments (
	id               INTEGER PRIMARY KEY,           -- tracker attachment id
	bug_id           INTEGER NOT NULL REFERENCES bugs (id) ON DELETE CASCADE,
	file_name        TEXT NOT NULL DEFAULT '',
	summary          TEXT NOT NULL DEFAULT '',
	content_type     TEXT NOT NULL DEFAULT '',
	creator          TEXT NOT NULL DEFAULT '',
	creation_time    TEXT NOT NULL DEFAULT '',
	last_change_time TEXT NOT NULL DEFAULT '',
	is_patch         INTEGER NOT NULL DEFAULT 0,
	is_obsolete      INTEGER NOT NULL DEFAULT 0,
	size             INTEGER NOT NULL DEFAULT 0,
	sha256           TEXT NOT NULL DEFAULT '',
	data             BLOB
);
CREATE INDEX attachments_bug ON attachments (bug_id);

-- A patch or series worth testing; the same content on one bug is one row.
CREATE TABLE candidates (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	bug_id     INTEGER NOT NULL,
	source     TEXT NOT NULL CHECK (source IN ('attachment', 'comment', 'manual', 'series')),
	source_id  INTEGER,                              -- attachment or comment id
	kind       TEXT NOT NULL CHECK (kind IN ('patch', 'series', 'mbox')),
	name       TEXT NOT NULL DEFAULT '',
	sha256     TEXT NOT NULL,
	content    BLOB,                                 -- patch text, or NULL for a series path
	path       TEXT,                                 -- series directory, for kind = series
	patch_count INTEGER NOT NULL DEFAULT 1,
	created_at INTEGER NOT NULL DEFAULT (strftime('%s', 'now')),
	UNIQUE (bug_id, sha256)
);

CREATE TABLE jobs (
	id             INTEGER PRIMARY KEY AUTOINCREMENT,
	bug_id         INTEGER,                          -- no FK: jobs may name untracked bugs
	candidate_id   INTEGER REFERENCES candidates (id),
	parent_id      INTEGER REFERENCES jobs (id),      -- bisection steps, re-runs
	kind           TEXT NOT NULL DEFAULT 'test'
		CHECK (kind IN ('test', 'retest', 'bisect', 'bisect-step')),
	base           TEXT NOT NULL DEFAULT 'linux-source-6.1',
	patch_count    INTEGER NOT NULL DEFAULT 0,       -- apply only the first N (0: all)
	with_baseline  INTEGER NOT NULL DEFAULT 0,       -- also run the unpatched base
	state          TEXT NOT NULL DEFAULT 'queued'
		CHECK (state IN ('queued', 'running', 'done', 'cancelled')),
	stage          TEXT,                             -- current stage while running
	progress       TEXT,                             -- last progress line
	runner         TEXT,
	lease_expires  INTEGER,
	attempts       INTEGER NOT NULL DEFAULT 0,
	cancel         INTEGER NOT NULL DEFAULT 0,
	verdict        TEXT CHECK (verdict IN ('pass', 'fail', 'apply-failed', 'build-failed',
		'boot-timeout', 'panic', 'infra-error')),
	change         TEXT,                             -- FAIL->PASS, PASS->FAIL, ...
	verdict_detail TEXT,
	accel          TEXT,
	kernel_version TEXT,
	log_dir        TEXT,
	created_at     INTEGER NOT NULL DEFAULT (strftime('%s', 'now')),
	started_at     INTEGER,
	finished_at    INTEGER,
	reported       INTEGER NOT NULL DEFAULT 0        -- triage has turned it into outbox rows
);
CREATE INDEX jobs_state ON jobs (state, id);
CREATE INDEX jobs_bug ON jobs (bug_id);

CREATE TABLE job_stages (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	job_id      INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	attempt     INTEGER NOT NULL DEFAULT 1,
	variant     TEXT NOT NULL DEFAULT 'patched',     -- patched | baseline
	stage       TEXT NOT NULL CHECK (stage IN ('prepare', 'apply', 'configure', 'build',
		'boot', 'test', 'report')),
	started_at  REAL NOT NULL,
	finished_at REAL,
	status      TEXT NOT NULL DEFAULT 'running'
		CHECK (status IN ('running', 'ok', 'failed', 'skipped')),
	detail      TEXT
);
CREATE INDEX job_stages_job ON job_stages (job_id, id);

CREATE TABLE test_results (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	job_id      INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	variant     TEXT NOT NULL DEFAULT 'patched',
	name        TEXT NOT NULL,
	status      TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'skip', 'flaky')),
	runs        INTEGER NOT NULL DEFAULT 1,
	failures    INTEGER NOT NULL DEFAULT 0,
	diagnostics TEXT NOT NULL DEFAULT '',
	UNIQUE (job_id, variant, name)
);

CREATE TABLE signatures (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	job_id   INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	variant  TEXT NOT NULL DEFAULT 'patched',
	kind     TEXT NOT NULL,                          -- oops, bug, warning, kasan, eod, hung, panic
	title    TEXT NOT NULL,                          -- normalised
	frames   TEXT NOT NULL DEFAULT '',               -- top frames, newline-separated
	hash     TEXT NOT NULL,
	UNIQUE (job_id, variant, hash)
);
CREATE INDEX signatures_hash ON signatures (hash);

-- Every write to the outside world: tracker comments, field updates, mails.
CREATE TABLE outbox (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	kind       TEXT NOT NULL CHECK (kind IN ('comment', 'update', 'mail')),
	bug_id     INTEGER,
	job_id     INTEGER,
	marker     TEXT NOT NULL UNIQUE,                 -- idempotency key, also in the text
	payload    TEXT NOT NULL,                        -- JSON body or the whole mail
	state      TEXT NOT NULL DEFAULT 'pending'
		CHECK (state IN ('pending', 'sending', 'sent', 'failed', 'held')),
	attempts   INTEGER NOT NULL DEFAULT 0,
	next_try   INTEGER NOT NULL DEFAULT 0,
	last_error TEXT,
	remote_id  INTEGER,                              -- comment id the tracker gave
	created_at INTEGER NOT NULL DEFAULT (strftime('%s', 'now')),
	sent_at    INTEGER
);
CREATE INDEX outbox_due ON outbox (state, next_try, id);

CREATE TABLE digests (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	list        TEXT NOT NULL,
	period      TEXT NOT NULL,                       -- e.g. 2026-12-03 or 2026-W49
	subject     TEXT NOT NULL,
	message_id  TEXT NOT NULL UNIQUE,
	in_reply_to TEXT,
	body        TEXT NOT NULL,
	outbox_id   INTEGER REFERENCES outbox (id),
	created_at  INTEGER NOT NULL DEFAULT (strftime('%s', 'now')),
	UNIQUE (list, period)
);

CREATE TABLE poll_state (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	cursor      TEXT,                                -- tracker time of the last seen change
	last_poll   INTEGER,
	last_ok     INTEGER,
	last_error  TEXT,
	requests    INTEGER NOT NULL DEFAULT 0
);
INSERT INTO poll_state (id) VALUES (1);
