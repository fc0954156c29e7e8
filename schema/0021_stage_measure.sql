-- 0021_stage_measure: what a build stage did, for the estimates
-- (lib/estimate.h): build_kind says whether it built the base in full or
-- incrementally on a seed (they differ tenfold), objects how many objects
-- it compiled (kept up to date while it runs: a running job's progress).
-- NULL for other stages, and for builds from before this migration (their
-- kind is unknown: they are not measurements).
ALTER TABLE job_stages ADD COLUMN build_kind TEXT CHECK (build_kind IN ('full', 'incremental'));
ALTER TABLE job_stages ADD COLUMN objects INTEGER;
-- whether a base's seed was built here (lib/estimate_queue.c) looks at builds only
CREATE INDEX job_stages_build ON job_stages (stage, status, job_id);
