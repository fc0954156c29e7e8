-- 0022_untested: a job's verdict may be 'untested' (issue 32): its patch
-- changes code this kernel's configuration cannot build (an option that
-- does not stick, another architecture's file, a file that was not
-- compiled), so no test judged it.  Nobody's fault (jobs.fault stays NULL),
-- never a pass.
--
-- SQLite cannot alter a CHECK constraint, and rebuilding jobs would cascade
-- its deletion into job_stages and test_results (foreign keys are on, and
-- cannot be turned off inside the migration's transaction).  So the
-- constraint's text is edited where SQLite keeps it, the documented way to
-- loosen one ("Making Other Kinds Of Table Schema Changes", lang_altertable):
-- no row changes meaning.  RESET re-reads the schema on this connection;
-- the table created and dropped after it moves the schema cookie, so every
-- other open connection re-reads it too.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
	SET sql = replace(sql, '''panic'', ''infra-error'')',
			  '''panic'', ''infra-error'', ''untested'')')
	WHERE type = 'table' AND name = 'jobs';
PRAGMA writable_schema = RESET;
CREATE TABLE bb_schema_bump (x);
DROP TABLE bb_schema_bump;
-- the edit must have happened: a CHECK that fails otherwise stops the migration
CREATE TEMP TABLE bb_untested_check (ok INTEGER CHECK (ok));
INSERT INTO bb_untested_check
	SELECT instr(sql, '''untested''') > 0 FROM sqlite_schema
	WHERE type = 'table' AND name = 'jobs';
DROP TABLE bb_untested_check;
