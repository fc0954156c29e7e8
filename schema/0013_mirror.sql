-- 0013_mirror: what the tracker would not take of our field updates.
--
-- keywords_missing: set when [triage] mirror has "keywords" and the
-- tracker lacks some bugbridge-<state> keyword (found at start-up from GET
-- /rest/field/bug/keywords, or from a refusal with code 51): the names, or
-- the tracker's words.  While it is set, updates go out without their
-- keywords, so the whiteboard (and status) still land; NULL: all there.
-- outbox.refused: the part of a write the tracker refused while the rest
-- landed ("keywords: There is no keyword named ..."), for the overview.
ALTER TABLE tracker_state ADD COLUMN keywords_missing TEXT;
ALTER TABLE outbox ADD COLUMN refused TEXT;
