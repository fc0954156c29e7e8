-- 0016_fault: whose fault a job's outcome is (lib/fault.h): 'patch', 'infra'
-- or 'ours'; NULL while the job runs and when the suite judged (pass, fail)
-- or a job without a patch showed the base's own behaviour.  infra-error
-- is 'infra' (retried up to [runner] max_attempts) or 'ours' (bugbridge's
-- own harness, base, config or scenarios: not retried).  Rows from before
-- this migration get what their verdict says.
ALTER TABLE jobs ADD COLUMN fault TEXT CHECK (fault IN ('patch', 'infra', 'ours'));
UPDATE jobs SET fault = 'infra' WHERE verdict = 'infra-error';
UPDATE jobs SET fault = 'patch' WHERE candidate_id IS NOT NULL
	AND verdict IN ('apply-failed', 'build-failed', 'panic', 'boot-timeout');
