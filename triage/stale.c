/*
 * stale: open bugs that nobody but the reporter and bugbridge has answered
 * for [triage] stale_days get bugs.needs_attention = 1, which the dashboard
 * shows and the digest lists.  It is a flag, not a triage state: a bug can
 * be reproduced and still ignored by every human.  The flag clears itself
 * as soon as someone else comments or the bug closes.
 *
 * Tracker times are ISO-8601 UTC text, so the cutoff is compared as text in
 * the same format.  A bug whose creation time we never saw is left alone.
 */
#include "stale.h"
#include "config.h"
#include "log.h"

#include <stdio.h>

DB_SQL(sql_stale_update,
       "UPDATE bugs SET needs_attention = ?3"
       " WHERE needs_attention <> ?3 AND id IN (SELECT b.id FROM bugs b"
       "  WHERE (b.is_open = 1 AND b.ignored = 0 AND b.creation_time <> ''"
       "   AND b.creation_time < ?1"
       "   AND NOT EXISTS (SELECT 1 FROM comments c WHERE c.bug_id = b.id"
       "    AND c.is_ours = 0 AND c.author <> b.creator AND c.author <> ?2"
       "    AND c.time >= ?1)) = ?3)");

static int set_flags(struct db *db, const char *cutoff, int value, int *changed)
{
	sqlite3_stmt *st = db_stmt(db, sql_stale_update);

	if (!st)
		return -1;
	db_bind_text(st, 1, cutoff);
	db_bind_text(st, 2, cfg_str("tracker.login"));
	sqlite3_bind_int(st, 3, value);
	if (db_step_done(db, st))
		return error("stale: cannot update flags: %s", db_errmsg(db));
	*changed = sqlite3_changes(db->h);
	return 0;
}

int stale_check(struct db *db, time_t now, int *flagged)
{
	long days = cfg_int("triage.stale_days");
	time_t t;
	struct tm tm;
	char cutoff[32];
	int cleared = 0;

	*flagged = 0;
	if (days <= 0)
		return 0;
	t = now - days * 86400;
	gmtime_r(&t, &tm);
	strftime(cutoff, sizeof(cutoff), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (db_begin(db))
		return -1;
	if (set_flags(db, cutoff, 1, flagged) || set_flags(db, cutoff, 0, &cleared)) {
		db_rollback(db);
		return -1;
	}
	if (db_commit(db))
		return -1;
	if (*flagged || cleared)
		log_info("stale: %d bug(s) now need attention, %d no longer", *flagged, cleared);
	return 0;
}
