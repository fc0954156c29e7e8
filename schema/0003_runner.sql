-- 0003_runner: what the runner needs beyond 0001.

-- Per test case, what changed against the baseline run of the same job
-- ("FAIL->PASS", "PASS->FAIL", "FAIL->FAIL", "PASS->PASS", "FLAKY", or NULL
-- when the job had no baseline).
ALTER TABLE test_results ADD COLUMN change TEXT;

-- Baseline runs are cached: the unpatched base with the same config, harness
-- and suite gives the same results, so a later job copies the test_results
-- and signatures rows (variant 'baseline') of the job that ran it.
CREATE TABLE baseline_runs (
	key        TEXT PRIMARY KEY,                     -- sha256 of base, config, harness, suite
	job_id     INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	verdict    TEXT NOT NULL,
	detail     TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL DEFAULT (strftime('%s', 'now'))
);
