-- 0017_bases: jobs on more than one kernel (issue 25).
--
-- jobs.base names the kernel as apt names it: linux-source-6.12 (a kept
-- series, [runner] bases) or linux-source-6.1=6.1.170-3 (a release of the
-- archive, which the runner fetches).  base_reason: why that base, for the
-- job page ("the bug's version field says 6.6: series 6.1, the nearest
-- kept").  purpose: '' for a job about its bug; 'backtest' for a fix
-- tested on another kept series after its FAIL->PASS (parent_id: that
-- job); 'release' for one step of a release bisection, an unpatched
-- release of the archive (parent_id: the job whose unpatched kernel
-- failed).  Such jobs change no bug state: triage reports them together.
-- bugs.cf_kernel_version: the tracker's custom field as the poller read it
-- ("" where the tracker has none).
ALTER TABLE jobs ADD COLUMN base_reason TEXT;
ALTER TABLE jobs ADD COLUMN purpose TEXT NOT NULL DEFAULT ''
	CHECK (purpose IN ('', 'backtest', 'release'));
ALTER TABLE bugs ADD COLUMN cf_kernel_version TEXT NOT NULL DEFAULT '';
CREATE INDEX jobs_parent_purpose ON jobs (parent_id, purpose);

-- A release bisection: for a test the unpatched kernel of a kept series
-- fails, the first release of that series in the archive that fails it
-- (triage/releases.c).  The steps are jobs (purpose 'release', parent_id
-- root_job); this row keeps what they are searched over and the answer.
-- releases: the archive's releases when it began, oldest first, the
-- root's own last (" "-joined Debian versions).  good/bad: the newest
-- release seen to pass, the oldest seen to fail (NULL: none yet; bad
-- starts as the root's).  summary: the answer in words, once state is
-- 'done' (or why it stopped).  regzbot: the "#regzbot introduced:" line
-- it offers, when it found a range.
CREATE TABLE release_bisections (
	root_job    INTEGER PRIMARY KEY REFERENCES jobs (id),
	bug_id      INTEGER NOT NULL,
	series      TEXT NOT NULL,
	tests       TEXT NOT NULL,
	releases    TEXT NOT NULL,
	state       TEXT NOT NULL DEFAULT 'running'
		CHECK (state IN ('running', 'done', 'stopped')),
	good        TEXT,
	bad         TEXT,
	builds      INTEGER NOT NULL DEFAULT 0,
	summary     TEXT,
	regzbot     TEXT,
	created_at  INTEGER NOT NULL DEFAULT (strftime('%s', 'now')),
	finished_at INTEGER
);
CREATE INDEX release_bisections_bug ON release_bisections (bug_id, series);
-- what anyone may see: a private bug's bisection follows its bug
CREATE VIEW public_release_bisections AS SELECT * FROM release_bisections
	WHERE bug_id NOT IN (SELECT id FROM private_bug_ids)
	AND root_job NOT IN (SELECT id FROM private_job_ids);
