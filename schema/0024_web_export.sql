-- 0024_web_export: the dashboard's process reads an export, not this file.
--
-- bugbridged copies what anyone may see (the public_* views, 0008) into a
-- database file of its own, [db] path with "-web" after it, and the
-- dashboard's process opens only that one (web/privsep_export.c): a
-- process that parses hostile HTTP holds no descriptor on a file with a
-- private bug, an attachment's data, a mail's text or an artifact token.
-- Before each request it asks bugbridged to bring the export up to date;
-- export_seq says which tables changed since, so that only those are
-- copied again: every write to a table bumps its row here.  A table with
-- no row here is copied on every change of the database.
CREATE TABLE export_seq (
	tbl TEXT PRIMARY KEY,
	n   INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
INSERT INTO export_seq (tbl) VALUES
	('attachments'),
	('baseline_runs'),
	('bug_owners'),
	('bugs'),
	('candidates'),
	('comments'),
	('digests'),
	('job_stages'),
	('jobs'),
	('lava_jobs'),
	('outbox'),
	('poll_state'),
	('release_bisections'),
	('signatures'),
	('test_results'),
	('tracker_state');
CREATE TRIGGER export_attachments_i AFTER INSERT ON attachments BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'attachments';
END;
CREATE TRIGGER export_attachments_u AFTER UPDATE ON attachments BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'attachments';
END;
CREATE TRIGGER export_attachments_d AFTER DELETE ON attachments BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'attachments';
END;
CREATE TRIGGER export_baseline_runs_i AFTER INSERT ON baseline_runs BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'baseline_runs';
END;
CREATE TRIGGER export_baseline_runs_u AFTER UPDATE ON baseline_runs BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'baseline_runs';
END;
CREATE TRIGGER export_baseline_runs_d AFTER DELETE ON baseline_runs BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'baseline_runs';
END;
CREATE TRIGGER export_bug_owners_i AFTER INSERT ON bug_owners BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'bug_owners';
END;
CREATE TRIGGER export_bug_owners_u AFTER UPDATE ON bug_owners BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'bug_owners';
END;
CREATE TRIGGER export_bug_owners_d AFTER DELETE ON bug_owners BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'bug_owners';
END;
CREATE TRIGGER export_bugs_i AFTER INSERT ON bugs BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'bugs';
END;
CREATE TRIGGER export_bugs_u AFTER UPDATE ON bugs BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'bugs';
END;
CREATE TRIGGER export_bugs_d AFTER DELETE ON bugs BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'bugs';
END;
CREATE TRIGGER export_candidates_i AFTER INSERT ON candidates BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'candidates';
END;
CREATE TRIGGER export_candidates_u AFTER UPDATE ON candidates BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'candidates';
END;
CREATE TRIGGER export_candidates_d AFTER DELETE ON candidates BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'candidates';
END;
CREATE TRIGGER export_comments_i AFTER INSERT ON comments BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'comments';
END;
CREATE TRIGGER export_comments_u AFTER UPDATE ON comments BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'comments';
END;
CREATE TRIGGER export_comments_d AFTER DELETE ON comments BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'comments';
END;
CREATE TRIGGER export_digests_i AFTER INSERT ON digests BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'digests';
END;
CREATE TRIGGER export_digests_u AFTER UPDATE ON digests BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'digests';
END;
CREATE TRIGGER export_digests_d AFTER DELETE ON digests BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'digests';
END;
CREATE TRIGGER export_job_stages_i AFTER INSERT ON job_stages BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'job_stages';
END;
CREATE TRIGGER export_job_stages_u AFTER UPDATE ON job_stages BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'job_stages';
END;
CREATE TRIGGER export_job_stages_d AFTER DELETE ON job_stages BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'job_stages';
END;
CREATE TRIGGER export_jobs_i AFTER INSERT ON jobs BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'jobs';
END;
CREATE TRIGGER export_jobs_u AFTER UPDATE ON jobs BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'jobs';
END;
CREATE TRIGGER export_jobs_d AFTER DELETE ON jobs BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'jobs';
END;
CREATE TRIGGER export_lava_jobs_i AFTER INSERT ON lava_jobs BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'lava_jobs';
END;
CREATE TRIGGER export_lava_jobs_u AFTER UPDATE ON lava_jobs BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'lava_jobs';
END;
CREATE TRIGGER export_lava_jobs_d AFTER DELETE ON lava_jobs BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'lava_jobs';
END;
CREATE TRIGGER export_outbox_i AFTER INSERT ON outbox BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'outbox';
END;
CREATE TRIGGER export_outbox_u AFTER UPDATE ON outbox BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'outbox';
END;
CREATE TRIGGER export_outbox_d AFTER DELETE ON outbox BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'outbox';
END;
CREATE TRIGGER export_poll_state_i AFTER INSERT ON poll_state BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'poll_state';
END;
CREATE TRIGGER export_poll_state_u AFTER UPDATE ON poll_state BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'poll_state';
END;
CREATE TRIGGER export_poll_state_d AFTER DELETE ON poll_state BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'poll_state';
END;
CREATE TRIGGER export_release_bisections_i AFTER INSERT ON release_bisections BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'release_bisections';
END;
CREATE TRIGGER export_release_bisections_u AFTER UPDATE ON release_bisections BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'release_bisections';
END;
CREATE TRIGGER export_release_bisections_d AFTER DELETE ON release_bisections BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'release_bisections';
END;
CREATE TRIGGER export_signatures_i AFTER INSERT ON signatures BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'signatures';
END;
CREATE TRIGGER export_signatures_u AFTER UPDATE ON signatures BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'signatures';
END;
CREATE TRIGGER export_signatures_d AFTER DELETE ON signatures BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'signatures';
END;
CREATE TRIGGER export_test_results_i AFTER INSERT ON test_results BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'test_results';
END;
CREATE TRIGGER export_test_results_u AFTER UPDATE ON test_results BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'test_results';
END;
CREATE TRIGGER export_test_results_d AFTER DELETE ON test_results BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'test_results';
END;
CREATE TRIGGER export_tracker_state_i AFTER INSERT ON tracker_state BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'tracker_state';
END;
CREATE TRIGGER export_tracker_state_u AFTER UPDATE ON tracker_state BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'tracker_state';
END;
CREATE TRIGGER export_tracker_state_d AFTER DELETE ON tracker_state BEGIN
	UPDATE export_seq SET n = n + 1 WHERE tbl = 'tracker_state';
END;

-- What the export needs to tell about privacy later (issue 35).  An
-- artifact token is served while its job is as private as it was when the
-- token was made (a job made private since has its public token revoked);
-- a LAVA job's visibility is what it was submitted with (or given since),
-- so that bugbridged can hide the public ones of a bug that became private.
ALTER TABLE artifacts ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
ALTER TABLE lava_jobs ADD COLUMN visibility TEXT;
