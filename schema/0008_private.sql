-- 0008_private: private bugs, comments and attachments, and what the public sees.
--
-- A bug in any tracker group (Bugzilla's "groups", e.g. kernel-security) is
-- private: only members see it on the tracker, so nothing of it may reach an
-- unauthenticated page, the feed, the digest or another bug's comment.
-- Comments and attachments marked is_private (Bugzilla's insider flag) are
-- never candidates and never quoted, on any bug.
ALTER TABLE bugs ADD COLUMN groups TEXT NOT NULL DEFAULT '';   -- ", "-joined, sorted
ALTER TABLE attachments ADD COLUMN is_private INTEGER NOT NULL DEFAULT 0;

-- The few private rows, for the NOT IN (...) of the views below.
CREATE INDEX bugs_private ON bugs (id) WHERE groups <> '';
CREATE INDEX comments_private ON comments (id) WHERE is_private <> 0;
CREATE INDEX attachments_private ON attachments (id) WHERE is_private <> 0;
CREATE INDEX jobs_candidate ON jobs (candidate_id);

-- What is private: the bugs in a group; the candidates of those bugs and
-- those made from a comment or attachment that is (or became) private; the
-- jobs of either.
CREATE VIEW private_bug_ids AS SELECT id FROM bugs WHERE groups <> '';
CREATE VIEW private_candidate_ids AS
	SELECT id FROM candidates WHERE bug_id IN (SELECT id FROM private_bug_ids)
	UNION SELECT id FROM candidates WHERE source = 'attachment'
		AND source_id IN (SELECT id FROM attachments WHERE is_private <> 0)
	UNION SELECT id FROM candidates WHERE source = 'comment'
		AND source_id IN (SELECT id FROM comments WHERE is_private <> 0);
CREATE VIEW private_job_ids AS
	SELECT id FROM jobs WHERE bug_id IN (SELECT id FROM private_bug_ids)
	UNION SELECT id FROM jobs WHERE candidate_id IN (SELECT id FROM private_candidate_ids);

-- What anyone may see.  The digest reads these views; the dashboard's
-- unauthenticated connections shadow each table with its view (a TEMP view
-- of the table's name), so that every page, API answer and feed sees
-- nothing else, whatever its query says.  A job, post or owner row follows
-- its bug; a job of a bug we do not track is public.
CREATE VIEW public_bugs AS SELECT * FROM bugs WHERE groups = '';
CREATE VIEW public_comments AS SELECT * FROM comments
	WHERE is_private = 0 AND bug_id NOT IN (SELECT id FROM private_bug_ids);
CREATE VIEW public_attachments AS SELECT * FROM attachments
	WHERE is_private = 0 AND bug_id NOT IN (SELECT id FROM private_bug_ids);
CREATE VIEW public_candidates AS SELECT * FROM candidates
	WHERE id NOT IN (SELECT id FROM private_candidate_ids);
CREATE VIEW public_jobs AS SELECT * FROM jobs
	WHERE id NOT IN (SELECT id FROM private_job_ids);
CREATE VIEW public_job_stages AS SELECT * FROM job_stages
	WHERE job_id NOT IN (SELECT id FROM private_job_ids);
CREATE VIEW public_test_results AS SELECT * FROM test_results
	WHERE job_id NOT IN (SELECT id FROM private_job_ids);
CREATE VIEW public_signatures AS SELECT * FROM signatures
	WHERE job_id NOT IN (SELECT id FROM private_job_ids);
CREATE VIEW public_baseline_runs AS SELECT * FROM baseline_runs
	WHERE job_id NOT IN (SELECT id FROM private_job_ids);
CREATE VIEW public_outbox AS SELECT * FROM outbox
	WHERE (bug_id IS NULL OR bug_id NOT IN (SELECT id FROM private_bug_ids))
	AND (job_id IS NULL OR job_id NOT IN (SELECT id FROM private_job_ids));
CREATE VIEW public_bug_owners AS SELECT * FROM bug_owners
	WHERE bug_id NOT IN (SELECT id FROM private_bug_ids);
