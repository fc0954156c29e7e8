-- 0004_web: indexes for the dashboard's and API's reads.
-- /component/<c> and /api/bugs?component= list open bugs newest change first:
-- this index serves the filter and the order without a sort.
CREATE INDEX bugs_component_open_change ON bugs (component, is_open, last_change_time);
-- Every bug row shows its latest verdict (a per-bug subquery on done jobs).
CREATE INDEX jobs_bug_done ON jobs (bug_id, finished_at) WHERE state = 'done';
-- /bug/<id> lists the posts we made about the bug.
CREATE INDEX outbox_bug ON outbox (bug_id);
-- Queue estimates read the most recent finished stages.
CREATE INDEX job_stages_recent ON job_stages (status, id);
