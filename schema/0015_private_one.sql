-- 0015_private_one: "private" is written once, and everything asks it.
--
-- private_bug_ids and private_job_ids (0008) are the rule: a bug in a
-- tracker group; a job of such a bug, or of a candidate made from a comment
-- or attachment that is (or became) private.  C asks bug_is_private() and
-- job_is_private() (lib/privacy.c), which read these views; SQL elsewhere
-- uses them with IN / NOT IN.  public_bugs wrote the rule a second time
-- (groups = ''); it now reads private_bug_ids like every other public_ view.
DROP VIEW public_bugs;
CREATE VIEW public_bugs AS SELECT * FROM bugs
	WHERE id NOT IN (SELECT id FROM private_bug_ids);
