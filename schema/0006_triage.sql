-- 0006_triage: what triage keeps beyond 0001.

-- The maintainers and lists MAINTAINERS gives for a bug's files (the files
-- its patches touch and its traces name); the dashboard shows them and the
-- digest routes by them.  Rebuilt whenever owners_key changes.
CREATE TABLE bug_owners (
	bug_id  INTEGER NOT NULL REFERENCES bugs (id) ON DELETE CASCADE,
	kind    TEXT NOT NULL CHECK (kind IN ('maintainer', 'list')),
	address TEXT NOT NULL,                           -- "Name <addr>" or a list address
	entry   TEXT NOT NULL DEFAULT '',                -- MAINTAINERS entry title
	rank    INTEGER NOT NULL DEFAULT 0,              -- 0 is the most specific
	PRIMARY KEY (bug_id, kind, address)
);

-- What owners were computed from ("c<max candidate id>/m<max comment id>").
ALTER TABLE bugs ADD COLUMN owners_key TEXT NOT NULL DEFAULT '';
-- "bugbridge: ignore" from an allowed account: no more jobs or comments.
ALTER TABLE bugs ADD COLUMN ignored INTEGER NOT NULL DEFAULT 0;

-- Re-runs and bisection steps are found by their parent.
CREATE INDEX jobs_parent ON jobs (parent_id);
