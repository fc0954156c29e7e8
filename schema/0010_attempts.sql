-- 0010_attempts: jobs.attempts counts every run that has ended, the one
-- that gave the verdict included (lib/job.h), so that a job finished on its
-- first run says 1, as its stage table does.  Before, a finished job said
-- one less; the stage rows know how many runs there were.
UPDATE jobs SET attempts = max(attempts,
	(SELECT ifnull(max(attempt), 0) FROM job_stages WHERE job_id = jobs.id))
 WHERE state IN ('done', 'cancelled');
