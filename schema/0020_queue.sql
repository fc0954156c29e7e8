-- 0020_queue: who a job is for, its turn, and when it may start (issues 31, 33).
--
-- account: the tracker account the job is for: the author of the patch
-- the poll found, the account whose "bugbridge:" command asked for it;
-- follow-up work (re-runs, back-tests, bisection steps) inherits its
-- parent's.  '' is the operator's (bugbridge job add, POST /api/jobs):
-- never held by a budget.
-- lane: the order the runners take jobs in (lib/job.h, JOB_CLAIM_ORDER):
-- 0 a first verdict asked by an [triage] allow_commands account, 1 any
-- other first verdict (the operator's too), 2 follow-up work, which runs
-- only when no first verdict waits.  Within a lane, the account that
-- least recently had a job started goes first, then the oldest job.
-- not_before: a queued job is not claimed before this time (Unix
-- seconds): the next try after an infrastructure error (growing with each
-- attempt), or the UTC day a budget frees up.
-- budget_day: the UTC day ('2026-12-07') the job counts against its
-- account's and its bug's budgets ([queue] in the configuration); NULL:
-- it counts against none (the operator's, or from before this migration).
-- held: why a job waits past its turn for a budget, in words (NULL: it
-- does not).
-- retry_from: attempts already made when an operator re-queued the job
-- (bugbridge job retry): it gets [runner] max_attempts tries again.
ALTER TABLE jobs ADD COLUMN account TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN lane INTEGER NOT NULL DEFAULT 1 CHECK (lane IN (0, 1, 2));
ALTER TABLE jobs ADD COLUMN not_before INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN budget_day TEXT;
ALTER TABLE jobs ADD COLUMN held TEXT;
ALTER TABLE jobs ADD COLUMN retry_from INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET lane = 2
	WHERE purpose <> '' OR kind = 'bisect-step' OR (kind = 'retest' AND parent_id IS NOT NULL);

-- the claim's least-recently-used order reads each account's latest start
CREATE INDEX jobs_account_started ON jobs (account, started_at);
-- a budget counts one account's, or one bug's, jobs of a day
CREATE INDEX jobs_budget_account ON jobs (budget_day, account);
CREATE INDEX jobs_budget_bug ON jobs (budget_day, bug_id);
