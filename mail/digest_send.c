/*
 * digest_send: pending outbox mail rows -> the mail server, one at a time.
 *
 * A row is claimed (pending -> sending, attempts + 1, next_try = a lease)
 * before the SMTP session and settled after it.  If we die in between -
 * after the server's 250 but before "sent" is written - the row stays
 * "sending" until its lease runs out and is then sent again: the stored
 * message, byte for byte, so the copy carries the same Message-ID and list
 * software and mail clients drop it.  SMTP gives no way to ask the server
 * whether it already has a message, so this is the best "exactly once" mail
 * can do, and it is what RFC 5322's Message-ID is for.
 *
 * Test hook: BUGBRIDGE_TEST_CRASH_AFTER_SMTP=1 makes the process _exit(9)
 * right after the server accepted a message, before any bookkeeping - the
 * state a kill -9 at that instant leaves (tests/t5020-digest-crash.sh).
 */
#include "mail.h"
#include "config.h"
#include "log.h"
#include "message.h"
#include "smtp.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

DB_SQL(sql_mail_reclaim,
       "UPDATE outbox SET state = 'pending'"
       " WHERE kind = 'mail' AND state = 'sending' AND next_try <= ?");
DB_SQL(sql_mail_next,
       "SELECT id, payload, attempts FROM outbox"
       " WHERE kind = 'mail' AND state = 'pending' AND next_try <= ?"
       " ORDER BY next_try, id LIMIT 1");
DB_SQL(sql_mail_claim,
       "UPDATE outbox SET state = 'sending', attempts = attempts + 1, next_try = ?"
       " WHERE id = ? AND state = 'pending'");
DB_SQL(sql_mail_sent,
       "UPDATE outbox SET state = 'sent', sent_at = ?, last_error = NULL WHERE id = ?");
DB_SQL(sql_mail_retry,
       "UPDATE outbox SET state = 'pending', next_try = ?, last_error = ? WHERE id = ?");
DB_SQL(sql_mail_failed,
       "UPDATE outbox SET state = 'failed', last_error = ? WHERE id = ?");

struct mail_row {
	sqlite3_int64 id;
	int attempts;		/* before this one */
	struct buf payload;
};

/* Claim the next due row: 1 claimed, 0 none due, -1 error. */
static int claim_next(struct db *db, time_t now, struct mail_row *row)
{
	sqlite3_stmt *st;
	int rc, ret = -1;

	if (db_begin(db))
		return -1;
	st = db_stmt(db, sql_mail_next);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, now);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		row->id = sqlite3_column_int64(st, 0);
		buf_reset(&row->payload);
		buf_addstr(&row->payload, db_col_text(st, 1));
		row->attempts = sqlite3_column_int(st, 2);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE) {
		ret = 0;
		goto out;
	}
	if (rc != SQLITE_ROW) {
		error("digest: cannot read the outbox: %s", db_errmsg(db));
		goto out;
	}
	/* a session cannot outlive its timeout; twice that is the lease */
	st = db_stmt(db, sql_mail_claim);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, now + 2 * cfg_int("smtp.timeout"));
	sqlite3_bind_int64(st, 2, row->id);
	if (db_step_done(db, st))
		goto out;
	ret = 1;
out:
	if (ret < 0) {
		db_rollback(db);
	} else if (db_commit(db)) {
		db_rollback(db);
		ret = -1;
	}
	return ret;
}

/* Exponential backoff from [smtp] backoff, capped at an hour. */
static time_t retry_at(time_t now, int attempts)
{
	long delay = cfg_int("smtp.backoff");

	if (delay < 1)
		delay = 1;
	for (int i = 1; i < attempts && delay < 3600; i++)
		delay *= 2;
	return now + (delay > 3600 ? 3600 : delay);
}

static int settle(struct db *db, const struct mail_row *row, enum smtp_result res,
		  const char *reply, time_t now)
{
	sqlite3_stmt *st;

	switch (res) {
	case SMTP_SENT:
		st = db_stmt(db, sql_mail_sent);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, now);
		sqlite3_bind_int64(st, 2, row->id);
		break;
	case SMTP_RETRY:
		st = db_stmt(db, sql_mail_retry);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, retry_at(now, row->attempts + 1));
		db_bind_text(st, 2, reply);
		sqlite3_bind_int64(st, 3, row->id);
		break;
	default:
		st = db_stmt(db, sql_mail_failed);
		if (!st)
			return -1;
		db_bind_text(st, 1, reply);
		sqlite3_bind_int64(st, 2, row->id);
		break;
	}
	return db_step_done(db, st);
}

static int send_one(struct db *db, struct mail_row *row, struct digest_send_stats *stats)
{
	struct buf to = BUF_INIT, reply = BUF_INIT;
	enum smtp_result res;
	const char *crash = getenv("BUGBRIDGE_TEST_CRASH_AFTER_SMTP");
	int ret;

	if (mail_header_value(row->payload.ptr, "To", &to)) {
		res = SMTP_FAILED;
		buf_addstr(&reply, "message has no To: header");
	} else {
		res = smtp_send(cfg_str("smtp.from"), to.ptr, row->payload.ptr, &reply);
	}
	if (res == SMTP_SENT && crash && !strcmp(crash, "1")) {
		log_warn("digest: BUGBRIDGE_TEST_CRASH_AFTER_SMTP: exiting before bookkeeping");
		_exit(9);
	}
	switch (res) {
	case SMTP_SENT:
		stats->sent++;
		log_info("digest: mail %lld sent to %s", (long long)row->id, to.ptr);
		break;
	case SMTP_RETRY:
		stats->retry++;
		log_warn("digest: mail %lld to %s not sent, will retry: %s",
			 (long long)row->id, to.ptr, reply.ptr);
		break;
	default:
		stats->failed++;
		log_error("digest: mail %lld to %s refused: %s", (long long)row->id,
			  to.ptr, reply.ptr);
		break;
	}
	ret = settle(db, row, res, reply.ptr, time(NULL));
	buf_release(&to);
	buf_release(&reply);
	return ret;
}

int digest_send_pending(struct db *db, time_t now, const volatile sig_atomic_t *stop,
			struct digest_send_stats *stats)
{
	struct mail_row row = { 0, 0, BUF_INIT };
	sqlite3_stmt *st = db_stmt(db, sql_mail_reclaim);
	int ret = 0, rc = 0;

	/* rows whose sender died mid-session (see the top of this file) */
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, now);
	if (db_step_done(db, st))
		return -1;
	while (!*stop && (rc = claim_next(db, now, &row)) > 0) {
		if (send_one(db, &row, stats))
			ret = -1;
	}
	if (rc < 0)
		ret = -1;
	buf_release(&row.payload);
	return ret;
}
