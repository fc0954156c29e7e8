-- 0018_boot_args: kernel command-line tokens a job adds to every boot of
-- its kernel (issue 24).  The mutation campaign builds every mutant into
-- one kernel (mutant schemata) and picks one per job with bb_mutant=N;
-- bbsuite.stop=1 ends its suite at the first test that fails.  '' for
-- every other job.  Only [A-Za-z0-9_.,:=-] tokens (job_queue.c checks).
ALTER TABLE jobs ADD COLUMN boot_args TEXT NOT NULL DEFAULT '';
