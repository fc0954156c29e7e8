-- 0009_reach: did the run execute the lines the patch changed?  (issue 15)
--
-- The runner builds the patched variant with gcov for drivers/scsi, the
-- guest hands the counters back, and gcov says which of the patch's
-- changed executable lines ran.  NULL: not measured (no coverage build, no
-- data, or the patch changes nothing gcov can see).  A pass with
-- reach_changed > 0 and reach_reached = 0 is "pass (not reached)": it says
-- nothing about the patch, and triage never takes it for a fix.
ALTER TABLE jobs ADD COLUMN reach_changed INTEGER;   -- executable lines changed
ALTER TABLE jobs ADD COLUMN reach_reached INTEGER;   -- of those, executed
ALTER TABLE jobs ADD COLUMN reach TEXT;              -- one line, e.g. "reached 7 of 7 changed lines"
