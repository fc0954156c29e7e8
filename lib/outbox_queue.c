/*
 * outbox_queue: adding rows to the outbox.  Posting them is outbox.c's.
 */
#include "outbox.h"
#include "log.h"

DB_SQL(sql_outbox_add,
       "INSERT INTO outbox (kind, bug_id, job_id, marker, payload) VALUES (?, ?, ?, ?, ?)"
       " ON CONFLICT (marker) DO NOTHING");

int outbox_add(struct db *db, const char *kind, sqlite3_int64 bug_id,
	       sqlite3_int64 job_id, const char *marker, const char *payload)
{
	sqlite3_stmt *st = db_stmt(db, sql_outbox_add);

	if (!st)
		return -1;
	db_bind_text(st, 1, kind);
	if (bug_id)
		sqlite3_bind_int64(st, 2, bug_id);
	if (job_id)
		sqlite3_bind_int64(st, 3, job_id);
	db_bind_text(st, 4, marker);
	db_bind_text(st, 5, payload);
	if (db_step_done(db, st))
		return error("outbox: cannot queue %s '%s'", kind, marker);
	return 0;
}
