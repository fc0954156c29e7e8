/*
 * digest: when a digest is due, build it once per period and list, record
 * it and queue its mail in one transaction, then send pending mail.
 *
 * The period is the key: `digests` holds UNIQUE (list, period), and the
 * check and both inserts (the digest and its outbox row) happen under one
 * BEGIN IMMEDIATE, so two processes (bugbridged and `bugbridge digest
 * --send-now`) can never queue the same digest twice, and a crash leaves
 * either both rows or neither.
 * "Since the last digest" means since the previous digest of the same list
 * was built (its created_at); a list's first digest covers one period back.
 * A digest with nothing in it is not sent (and not recorded, so the next
 * one still covers the quiet time), and neither is a list's first digest
 * before it has a test result (a fresh install's first poll is no news).
 */
#include "mail.h"
#include "config.h"
#include "log.h"
#include "message.h"
#include "outbox.h"

#include <string.h>

DB_SQL(sql_digest_exists, "SELECT 1 FROM digests WHERE list = ? AND period = ?");
DB_SQL(sql_digest_last,
       "SELECT message_id, created_at FROM digests WHERE list = ? ORDER BY id DESC LIMIT 1");
DB_SQL(sql_digest_first,
       "SELECT message_id FROM digests WHERE list = ? ORDER BY id LIMIT 1");
DB_SQL(sql_digest_record,
       "INSERT INTO digests (list, period, subject, message_id, in_reply_to, body,"
       " outbox_id, created_at)"
       " VALUES (?, ?, ?, ?, ?, ?, (SELECT id FROM outbox WHERE marker = ?), ?)");

/* Where a new digest of a list starts, and what it threads under. */
struct digest_prev {
	struct buf in_reply_to;
	struct buf references;
	time_t since;
};

static void prev_release(struct digest_prev *p)
{
	buf_release(&p->in_reply_to);
	buf_release(&p->references);
}

/*
 * References name the list's first digest and the previous one: enough for
 * every client to thread, without a header that grows every day.
 */
static int prev_load(struct db *db, const struct digest_route *r, time_t now,
		     struct digest_prev *p)
{
	sqlite3_stmt *st = db_stmt(db, sql_digest_last);
	int rc;

	buf_init(&p->in_reply_to, 0);
	buf_init(&p->references, 0);
	p->since = now - digest_period_seconds(cfg_str("digest.every"));
	if (!st)
		return -1;
	db_bind_text(st, 1, r->list);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		buf_addstr(&p->in_reply_to, db_col_text(st, 0));
		p->since = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("digest: cannot read digests: %s", db_errmsg(db));
	if (!p->in_reply_to.len)
		return 0;
	st = db_stmt(db, sql_digest_first);
	if (!st)
		return -1;
	db_bind_text(st, 1, r->list);
	if (sqlite3_step(st) == SQLITE_ROW && strcmp(db_col_text(st, 0), p->in_reply_to.ptr))
		buf_addf(&p->references, "%s ", db_col_text(st, 0));
	sqlite3_reset(st);
	buf_addstr(&p->references, p->in_reply_to.ptr);
	return 0;
}

/* "bugbridge digest <bugbridge-digest.linux-scsi.vger.kernel.org>" (RFC 2919). */
static void list_id(struct buf *out, const char *list)
{
	buf_addstr(out, "bugbridge digest <bugbridge-digest.");
	for (const char *p = list; *p; p++) {
		char c = *p;

		if (c == '@')
			c = '.';
		else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '.' || c == '-'))
			c = '-';
		buf_addch(out, c);
	}
	buf_addch(out, '>');
}

static void compose(const struct digest_route *r, const struct digest *d,
		    const struct digest_prev *p, const char *message_id, time_t now,
		    struct buf *out, bool readable)
{
	struct buf lid = BUF_INIT;
	struct mail m = {
		.from = cfg_str("smtp.from"),
		.to = r->list,
		.subject = d->subject.ptr,
		.message_id = message_id,
		.in_reply_to = p->in_reply_to.ptr,
		.references = p->references.ptr,
		.date = now,
		.body = d->body.ptr,
	};

	list_id(&lid, r->list);
	m.list_id = lid.ptr;
	mail_compose(&m, out, readable);
	buf_release(&lid);
}

static int digest_exists(struct db *db, const struct digest_route *r, const char *period,
			 bool *exists)
{
	sqlite3_stmt *st = db_stmt(db, sql_digest_exists);
	int rc;

	if (!st)
		return -1;
	db_bind_text(st, 1, r->list);
	db_bind_text(st, 2, period);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return error("digest: cannot read digests: %s", db_errmsg(db));
	*exists = rc == SQLITE_ROW;
	return 0;
}

static int record(struct db *db, const struct digest_route *r, const char *period,
		  const struct digest *d, const char *message_id, const char *in_reply_to,
		  const char *message, time_t now)
{
	struct buf marker = BUF_INIT;
	sqlite3_stmt *st;
	int ret = -1;

	/* the Message-ID is the marker the message itself carries */
	buf_addf(&marker, "mail %s", message_id);
	if (outbox_add(db, "mail", 0, 0, marker.ptr, message))
		goto out;
	st = db_stmt(db, sql_digest_record);
	if (!st)
		goto out;
	db_bind_text(st, 1, r->list);
	db_bind_text(st, 2, period);
	db_bind_text(st, 3, d->subject.ptr);
	db_bind_text(st, 4, message_id);
	db_bind_text(st, 5, *in_reply_to ? in_reply_to : NULL);
	db_bind_text(st, 6, d->body.ptr);
	db_bind_text(st, 7, marker.ptr);
	sqlite3_bind_int64(st, 8, now);
	if (db_step_done(db, st)) {
		error("digest: cannot record the digest for '%s'", r->list);
		goto out;
	}
	ret = 0;
out:
	buf_release(&marker);
	return ret;
}

/*
 * Record and queue under the write lock, unless another process got there
 * first (the period is taken, or the list's last digest changed under us):
 * 1 recorded, 0 not, -1 error.
 */
static int record_locked(struct db *db, const struct digest_route *r, const char *period,
			 const struct digest *d, const struct digest_prev *prev,
			 const char *message_id, const char *message, time_t now)
{
	struct digest_prev again;
	bool exists = false;
	int ret = -1;

	buf_init(&again.in_reply_to, 0);
	buf_init(&again.references, 0);
	if (db_begin(db))
		return -1;
	if (digest_exists(db, r, period, &exists) || prev_load(db, r, now, &again))
		goto out;
	if (exists || strcmp(again.in_reply_to.ptr, prev->in_reply_to.ptr)) {
		ret = 0;
		goto out;
	}
	if (record(db, r, period, d, message_id, prev->in_reply_to.ptr, message, now))
		goto out;
	if (db_commit(db))
		goto out;
	ret = 1;
out:
	if (ret != 1)
		db_rollback(db);
	prev_release(&again);
	return ret;
}

/* DIGEST_QUEUED when d is worth a mail, else why not. */
static int worth_sending(const struct digest *d, const struct digest_prev *prev)
{
	if (digest_is_empty(d))
		return DIGEST_NOTHING;
	if (!prev->in_reply_to.len && !d->n_results)
		return DIGEST_FIRST_WAITS;
	return DIGEST_QUEUED;
}

/*
 * The build reads outside any transaction (it may take a while over a big
 * tracker, and must not hold the write lock meanwhile); only the check and
 * the two inserts run under it.
 */
int digest_queue(struct db *db, const struct digest_route *r, struct digest_shared *shared,
		 const char *period, time_t now)
{
	struct buf message_id = BUF_INIT, message = BUF_INIT, tag = BUF_INIT;
	struct digest_prev prev;
	struct digest d;
	bool exists = false;
	int ret = -1;

	digest_init(&d);
	buf_init(&prev.in_reply_to, 0);
	buf_init(&prev.references, 0);
	if (digest_exists(db, r, period, &exists))
		goto out;
	if (exists) {
		ret = 0;
		goto out;
	}
	if (prev_load(db, r, now, &prev) || digest_build(db, r, shared, prev.since, now, &d))
		goto out;
	ret = worth_sending(&d, &prev);
	if (ret != DIGEST_QUEUED) {
		log_info("digest: %s for '%s' in %s; not sending", ret == DIGEST_NOTHING ?
			 "nothing new" : "the first digest waits for a first test result",
			 r->list, period);
		goto out;
	}
	ret = -1;
	buf_addf(&tag, "bugbridge-digest.%s", period);
	if (mail_new_message_id(&message_id, tag.ptr, cfg_str("smtp.from"), now)) {
		error("digest: no random bytes for a Message-ID");
		goto out;
	}
	compose(r, &d, &prev, message_id.ptr, now, &message, false);
	ret = record_locked(db, r, period, &d, &prev, message_id.ptr, message.ptr, now);
	if (ret > 0)
		log_info("digest: queued %s for '%s' (%s)", period, r->list, message_id.ptr);
out:
	digest_release(&d);
	prev_release(&prev);
	buf_release(&message_id);
	buf_release(&message);
	buf_release(&tag);
	return ret;
}

int digest_preview(struct db *db, const struct digest_route *r, struct digest_shared *shared,
		   time_t now, struct buf *out, enum digest_outcome *outcome)
{
	struct buf message_id = BUF_INIT;
	struct digest_prev prev;
	struct digest d;
	int ret = -1;

	digest_init(&d);
	if (prev_load(db, r, now, &prev) || digest_build(db, r, shared, prev.since, now, &d))
		goto out;
	*outcome = worth_sending(&d, &prev);
	if (mail_new_message_id(&message_id, "bugbridge-digest.preview",
				cfg_str("smtp.from"), now))
		goto out;
	compose(r, &d, &prev, message_id.ptr, now, out, true);
	ret = 0;
out:
	digest_release(&d);
	prev_release(&prev);
	buf_release(&message_id);
	return ret;
}

int digest_tick(struct db *db, time_t now, const volatile sig_atomic_t *stop)
{
	struct digest_routes routes = DIGEST_ROUTES_INIT;
	struct digest_shared *shared = digest_shared_new();
	struct digest_send_stats stats = { 0 };
	struct buf period = BUF_INIT, err = BUF_INIT;
	const char *every = cfg_str("digest.every");
	int ret = 0;

	if (strcmp(every, "never")) {
		if (digest_routes_load(&routes, db, &err)) {
			ret = error("digest: %s", err.ptr);
			goto out;
		}
		digest_period(&period, now, every, (int)cfg_int("digest.hour"));
		for (int i = 0; i < routes.n && !*stop; i++)
			if (digest_queue(db, &routes.v[i], shared, period.ptr, now) < 0)
				ret = -1;
	}
	/* a mail refused or waiting for a retry is a failed step (logged) */
	if (!*stop && (digest_send_pending(db, now, stop, &stats) || stats.failed ||
		       stats.retry))
		ret = -1;
out:
	digest_shared_free(shared);
	digest_routes_release(&routes);
	buf_release(&period);
	buf_release(&err);
	return ret;
}
