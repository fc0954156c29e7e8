/*
 * digest_record: what became of a list's digest, for the operator
 * (`bugbridge digest`): was this period's built, when, and did its mail
 * go out; and queueing a refused digest again.
 *
 * A digest whose mail the server refused (5xx) never reached the list, so
 * sending the same stored message again (same Message-ID) cannot double
 * it; that is all --resend does.
 */
#include "mail.h"
#include "log.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

DB_SQL(sql_digest_record_get,
       "SELECT d.created_at, ifnull(o.state, 'sent'), ifnull(o.last_error, '')"
       " FROM digests d LEFT JOIN outbox o ON o.id = d.outbox_id"
       " WHERE d.list = ? AND d.period = ?");
DB_SQL(sql_digest_failed,
       "SELECT o.id, d.period, ifnull(o.last_error, '') FROM digests d"
       " JOIN outbox o ON o.id = d.outbox_id"
       " WHERE d.list = ? AND o.kind = 'mail' AND o.state = 'failed' ORDER BY o.id");
DB_SQL(sql_digest_requeue,
       "UPDATE outbox SET state = 'pending', attempts = 0, next_try = 0"
       " WHERE id = ? AND state = 'failed'");

void digest_record_release(struct digest_record *d)
{
	buf_release(&d->error);
}

int digest_record_get(struct db *db, const char *list, const char *period,
		      struct digest_record *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_digest_record_get);
	int rc;

	memset(out, 0, sizeof(*out));
	buf_init(&out->error, 0);
	if (!st)
		return -1;
	db_bind_text(st, 1, list);
	db_bind_text(st, 2, period);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->built = true;
		out->created_at = sqlite3_column_int64(st, 0);
		snprintf(out->state, sizeof(out->state), "%s", db_col_text(st, 1));
		buf_addstr(&out->error, db_col_text(st, 2));
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("digest: cannot read digests: %s", db_errmsg(db));
	return 0;
}

int digest_requeue_failed(struct db *db, const char *list, struct buf *report)
{
	sqlite3_stmt *st = db_stmt(db, sql_digest_failed);
	sqlite3_int64 ids[64];
	int n = 0, rc;

	if (!st)
		return -1;
	db_bind_text(st, 1, list);
	while (n < 64 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids[n++] = sqlite3_column_int64(st, 0);
		buf_addf(report, "requeued digest %s for %s (refused: %s)\n",
			 db_col_text(st, 1), list, db_col_text(st, 2));
	}
	sqlite3_reset(st);
	for (int i = 0; i < n; i++) {
		st = db_stmt(db, sql_digest_requeue);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, ids[i]);
		if (db_step_done(db, st))
			return -1;
		log_info("digest: mail %lld for '%s' requeued by hand", (long long)ids[i], list);
	}
	return n;
}
