/*
 * privacy: see privacy.h.  One statement per question, over the views.
 */
#include "privacy.h"
#include "config.h"
#include "log.h"

#include <string.h>

DB_SQL(sql_privacy_bug, "SELECT 1 FROM private_bug_ids WHERE id = ?");
DB_SQL(sql_privacy_job, "SELECT 1 FROM private_job_ids WHERE id = ?");

bool private_bugs_skipped(void)
{
	return !strcmp(cfg_str("tracker.private_bugs"), "skip");
}

static bool listed(struct db *db, const char *sql, const char *what, sqlite3_int64 id,
		   bool *failed)
{
	int rc = db_id_row(db, sql, id, NULL);

	if (failed)
		*failed = rc < 0;
	if (rc >= 0)
		return rc;
	log_warn("privacy: cannot tell whether %s %lld is private (taken as private): %s",
		 what, (long long)id, db_errmsg(db));
	return true;
}

bool bug_is_private(struct db *db, sqlite3_int64 bug_id, bool *failed)
{
	return listed(db, sql_privacy_bug, "bug", bug_id, failed);
}

bool job_is_private(struct db *db, sqlite3_int64 job_id, bool *failed)
{
	return listed(db, sql_privacy_job, "job", job_id, failed);
}
