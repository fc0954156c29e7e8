/*
 * outbox: outbox rows -> tracker comments and field updates, exactly once.
 *
 * The protocol, per row, in id order (and never past an unfinished earlier
 * row of the same bug):
 *
 *   1. A row that was attempted before (attempts > 0: a timeout, a dropped
 *      connection, a crash between POST and bookkeeping) may already have
 *      landed.  Before writing again we read the bug's comments and look
 *      for the row's marker in a comment by the bot; if it is there, the
 *      row is sent and we are done.  Anyone can type a marker, so only the
 *      bot's comments count (bot.h): by [tracker] login when it is set,
 *      else by the account the tracker said the key is (remembered: GET
 *      /rest/whoami on 5.1+ and BMO; the author of a comment we posted;
 *      on 5.0 and 5.2, GET /rest/valid_login about the author of each
 *      comment that carries the marker, until one is the bot).
 *   2. Mark the row 'sending' and attempts + 1, and COMMIT, before the
 *      request: a crash from here on leaves a row that step 1 will check.
 *   3. POST the comment (or PUT the update).  Success: 'sent' with the
 *      tracker's comment id.
 *
 * Failures: a transport error, 5xx or a malformed answer may or may not
 * have landed: back to step 1 after a backoff, up to [tracker] retries
 * times, then the row waits ('pending', next_try) for a later flush.
 * A write that timed out may still be in progress on the tracker, and so
 * may the write of a process that died with the row 'sending': such rows
 * are looked at again only after [tracker] timeout seconds (next_try is set
 * when the row is marked 'sending'), when that request has surely ended,
 * so that the marker check cannot miss a comment that is about to land.
 * Credentials refused (306 bad key, 410 login required, 300-307), or a
 * URL that does not lead to the REST API (32614, or a 4xx page that is not
 * Bugzilla's JSON): the row
 * is 'held' and the WHOLE queue waits until the (url, key) fingerprint in
 * the configuration changes (tracker_state.hold_*), because every other
 * write would fail the same way.  Any other tracker error (a bug that is
 * gone, an invalid field, no permission) is final: 'failed' with the
 * tracker's message.
 *
 * Updates (PUT) set fields to values, which is idempotent, so they are
 * resent without a marker check, unless they carry a comment.
 *
 * Privacy is decided when posting: a comment on a bug that is in a tracker
 * group now, or about a job that is private now (its candidate's comment or
 * attachment turned private: lib/privacy.h), is posted private (is_private,
 * insiders only); with [tracker] private_bugs = skip it is not written at all.
 *
 * Test hook: BUGBRIDGE_TEST_CRASH_AFTER_POST=1 makes the process _exit(9)
 * right after a successful POST/PUT, before any bookkeeping: the state a
 * kill -9 at the worst moment leaves.  Integration tests use it.
 */
#include "bot.h"
#include "bugzilla.h"
#include "mirror.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"
#include "redact.h"
#include "privacy.h"
#include "tracker.h"
#include "sha256.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BZ_MAX_COMMENT 65535

DB_SQL(sql_outbox_next,
       "SELECT id, kind, bug_id, marker, payload, attempts, ifnull(job_id, 0) FROM outbox o"
       " WHERE kind IN ('comment', 'update') AND state IN ('pending', 'sending')"
       "  AND next_try <= strftime('%s', 'now') AND id > ?"
       "  AND NOT EXISTS (SELECT 1 FROM outbox e WHERE e.bug_id = o.bug_id AND e.id < o.id"
       "   AND e.kind IN ('comment', 'update') AND e.state IN ('pending', 'sending', 'held'))"
       " ORDER BY id LIMIT 1");
DB_SQL(sql_outbox_sending,
       "UPDATE outbox SET state = 'sending', attempts = attempts + 1,"
       " next_try = strftime('%s', 'now') + ?2 WHERE id = ?1");
DB_SQL(sql_outbox_sent,
       "UPDATE outbox SET state = 'sent', sent_at = strftime('%s', 'now'), remote_id = ?2,"
       " last_error = NULL, refused = ?3 WHERE id = ?1");
DB_SQL(sql_outbox_retry,
       "UPDATE outbox SET state = 'pending', next_try = strftime('%s', 'now') + ?2,"
       " last_error = ?3 WHERE id = ?1");
DB_SQL(sql_outbox_final,
       "UPDATE outbox SET state = ?2, last_error = ?3 WHERE id = ?1");
DB_SQL(sql_outbox_hold_get,
       "SELECT hold_config, hold_reason FROM tracker_state WHERE id = 1");
DB_SQL(sql_outbox_hold_set,
       "UPDATE tracker_state SET hold_config = ?, hold_reason = ?,"
       " hold_since = strftime('%s', 'now') WHERE id = 1");
DB_SQL(sql_outbox_hold_clear,
       "UPDATE tracker_state SET hold_config = NULL, hold_reason = NULL, hold_since = NULL"
       " WHERE id = 1");
DB_SQL(sql_outbox_unhold,
       "UPDATE outbox SET state = 'pending', next_try = 0 WHERE state = 'held'"
       " AND kind IN ('comment', 'update')");

struct row {
	sqlite3_int64 id, bug_id, job_id;	/* job_id 0: none */
	char kind[16];
	char *marker, *payload;
	char *refused;		/* the part the tracker would not take, or NULL */
	int attempts;
};

/* What to do after a row. */
enum next { NEXT_ROW, STOP_FLUSH };

struct poster {
	struct db *db;
	struct bz bz;
	const volatile sig_atomic_t *stop;
	char fingerprint[SHA256_HEX_LEN];
	int retries;
	long backoff_ms;
	long timeout;		/* [tracker] timeout: how long a write may be in flight */
	bool held;		/* the queue is held (outbox_flush returns 1) */
	int failed;		/* rows that did not land this flush (outbox_flush returns -1) */
	struct bot bot;		/* whose comments are ours */
};

static void row_release(struct row *r)
{
	free(r->marker);
	free(r->payload);
	free(r->refused);
}

static int next_row(struct db *db, sqlite3_int64 after, struct row *r)
{
	sqlite3_stmt *st = db_stmt(db, sql_outbox_next);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, after);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? 0 : error("outbox: %s", db_errmsg(db));
	}
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	snprintf(r->kind, sizeof(r->kind), "%s", db_col_text(st, 1));
	r->bug_id = sqlite3_column_int64(st, 2);
	r->marker = xstrdup(db_col_text(st, 3));
	r->payload = xstrdup(db_col_text(st, 4));
	r->attempts = sqlite3_column_int(st, 5);
	r->job_id = sqlite3_column_int64(st, 6);
	sqlite3_reset(st);
	return 1;
}

static int set_state(struct db *db, const char *sql, sqlite3_int64 id, sqlite3_int64 num,
		     const char *text)
{
	sqlite3_stmt *st = db_stmt(db, sql);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sql == sql_outbox_final)
		db_bind_text(st, 2, num ? "held" : "failed");
	else
		sqlite3_bind_int64(st, 2, num);
	if (text)
		db_bind_text(st, 3, text);
	return db_step_done(db, st);
}

/* true: the queue is held for this configuration; release it if the configuration changed. */
static bool queue_held(struct poster *p)
{
	sqlite3_stmt *st = db_stmt(p->db, sql_outbox_hold_get);
	bool held = false, stale = false;

	if (!st)
		return true;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		if (!strcmp(db_col_text(st, 0), p->fingerprint)) {
			/* logged as an error when the hold began; status shows it */
			log_debug("outbox: held since the tracker refused our credentials: %s;"
				  " fix [tracker] api_key (or url) to release it",
				  db_col_text(st, 1));
			held = true;
		} else {
			stale = true;
		}
	}
	sqlite3_reset(st);
	if (stale) {
		if (db_begin(p->db) || db_exec(p->db, sql_outbox_unhold) ||
		    db_exec(p->db, sql_outbox_hold_clear) || db_commit(p->db)) {
			db_rollback(p->db);
			return true;
		}
		log_info("outbox: tracker configuration changed; held writes released");
	}
	return held;
}

static void hold_queue(struct poster *p, const struct row *r, const char *why)
{
	sqlite3_stmt *st;

	p->held = true;
	if (p->bz.err != BZ_ERR_LOGIN)
		log_error("outbox: [tracker] url does not lead to Bugzilla's REST API: %s;"
			  " holding every write until [tracker] url is fixed", why);
	else
		log_error("outbox: the tracker refused our credentials: %s; holding every write"
			  " until [tracker] api_key is fixed", why);
	if (db_begin(p->db))
		return;
	st = db_stmt(p->db, sql_outbox_hold_set);
	if (!st)
		goto fail;
	db_bind_text(st, 1, p->fingerprint);
	db_bind_text(st, 2, why);
	if (db_step_done(p->db, st) || set_state(p->db, sql_outbox_final, r->id, 1, why) ||
	    db_commit(p->db))
		goto fail;
	return;
fail:
	db_rollback(p->db);
}

/*
 * The marker as a line of its own: "job 4" must not match "job 42", and a
 * marker quoted inside a line of our comment (a patch's name, a rejected
 * hunk) must not pass for the marker of another job.
 */
static bool has_marker(const char *text, const char *marker)
{
	size_t n = strlen(marker);

	for (const char *p = strstr(text, marker); p; p = strstr(p + 1, marker))
		if ((p == text || p[-1] == '\n') && !isalnum((unsigned char)p[n]))
			return true;
	return false;
}

/* 1: the marker is on the bug (*comment_id set), 0: not, -1: could not tell. */
static int marker_landed(struct poster *p, const struct row *r, long *comment_id)
{
	struct bz_comment_list cl = { 0 };
	int ret = 0;

	if (bz_comments(&p->bz, r->bug_id, NULL, &cl))
		return -1;
	for (size_t i = cl.n; i-- > 0 && !ret;) {
		if (!has_marker(cl.v[i].text, r->marker))
			continue;
		/* anyone can type a marker; only ours count */
		ret = bot_is(&p->bot, &p->bz, cl.v[i].creator);
		if (ret > 0)
			*comment_id = cl.v[i].id;
		else if (!ret)
			log_warn("outbox: bug %lld: comment %ld by %s carries '%s' but is not ours",
				 (long long)r->bug_id, cl.v[i].id, cl.v[i].creator, r->marker);
	}
	bz_comment_list_release(&cl);
	return ret;
}

static bool carries_comment(const struct row *r)
{
	json_object *o, *c = NULL;
	bool yes;

	if (!strcmp(r->kind, "comment"))
		return true;
	o = json_tokener_parse(r->payload);
	yes = o && json_object_object_get_ex(o, "comment", &c);
	json_object_put(o);
	return yes;
}

static int send_row(struct poster *p, const struct row *r, bool is_private, long *remote_id)
{
	struct buf text = BUF_INIT;
	int ret;

	*remote_id = 0;
	if (strcmp(r->kind, "comment"))
		return bz_bug_update(&p->bz, r->bug_id, r->payload);
	if (!has_marker(r->payload, r->marker)) {
		/* without its marker a retry could not tell that it landed */
		struct buf with = BUF_INIT;

		buf_addf(&with, "%s\n\n%s\n", r->payload, r->marker);
		bz_comment_fit(with.ptr, r->marker, BZ_MAX_COMMENT, &text);
		buf_release(&with);
	} else {
		bz_comment_fit(r->payload, r->marker, BZ_MAX_COMMENT, &text);
	}
	ret = bz_comment_add(&p->bz, r->bug_id, text.ptr, is_private, remote_id);
	buf_release(&text);
	return ret;
}

static bool test_crash_hook(void)
{
	const char *v = getenv("BUGBRIDGE_TEST_CRASH_AFTER_POST");

	return v && !strcmp(v, "1");
}

/* Sleep ms, waking early on stop; false if stopped. */
static bool backoff(const struct poster *p, long ms)
{
	for (; ms > 0; ms -= 100) {
		struct timespec ts = { 0, (ms < 100 ? ms : 100) * 1000000L };

		if (p->stop && *p->stop)
			return false;
		nanosleep(&ts, NULL);
	}
	return !(p->stop && *p->stop);
}

/*
 * The answer says the configuration is wrong, not this row: refused
 * credentials, an unknown REST resource (code 32614), or a 4xx page that is
 * not Bugzilla's JSON at all ([tracker] url points at the wrong place).
 * Every write would fail alike, so the queue is held rather than each row
 * failed for good.
 */
static bool config_problem(const struct bz *bz)
{
	return bz->err == BZ_ERR_LOGIN || bz->code == 32614 ||
	       (bz->err == BZ_ERR_MALFORMED && bz->status >= 400 && bz->status < 500);
}

/* A final answer from the tracker: held or failed. */
static enum next refused(struct poster *p, const struct row *r)
{
	if (config_problem(&p->bz)) {
		hold_queue(p, r, p->bz.errmsg.ptr);
		return STOP_FLUSH;
	}
	log_error("outbox: %s for bug %lld ('%s') failed for good: %s", r->kind,
		  (long long)r->bug_id, r->marker, p->bz.errmsg.ptr);
	set_state(p->db, sql_outbox_final, r->id, 0, p->bz.errmsg.ptr);
	p->failed++;
	return NEXT_ROW;
}

/*
 * An update while the tracker lacks our keywords (why, else as remembered
 * in tracker_state): send the rest, so that the whiteboard still lands.
 * true when nothing is left to send (the row has failed).
 */
static bool without_keywords(struct poster *p, struct row *r, const char *why)
{
	struct buf rest = BUF_INIT;
	char *missing = why ? NULL : mirror_keywords_missing(p->db);
	bool empty = false;

	if (strcmp(r->kind, "update") || r->refused || (!why && !missing) ||
	    !mirror_strip_keywords(r->payload, &rest))
		goto out;
	{
		struct buf note = BUF_INIT;

		if (why)
			buf_addf(&note, "keywords: %s", why);
		else
			buf_addf(&note, "keywords: the tracker has no keyword %s", missing);
		r->refused = buf_detach(&note, NULL);
	}
	if (!rest.len) {
		log_error("outbox: %s for bug %lld ('%s') failed for good: %s", r->kind,
			  (long long)r->bug_id, r->marker, r->refused);
		set_state(p->db, sql_outbox_final, r->id, 0, r->refused);
		empty = true;
		goto out;
	}
	log_warn("outbox: %s for bug %lld ('%s') goes without its keywords: %s", r->kind,
		 (long long)r->bug_id, r->marker, r->refused);
	free(r->payload);
	r->payload = buf_detach(&rest, NULL);
out:
	free(missing);
	buf_release(&rest);
	return empty;
}

/* Code 51 on an update with keywords: one is missing; remember it, send the rest. */
static bool keyword_refused(const struct poster *p, const struct row *r)
{
	return p->bz.code == 51 && !strcmp(r->kind, "update") && !r->refused &&
	       strstr(r->payload, "\"keywords\"");
}

/*
 * Whether the row goes out at all: 1 yes (*priv set), 0 done with it, -1 stop.
 * Private now: decided when posting, not when queued.
 */
static int goes_out(struct poster *p, struct row *r, bool *priv)
{
	bool failed = false;

	*priv = bug_is_private(p->db, r->bug_id, &failed) ||
		(r->job_id && job_is_private(p->db, r->job_id, &failed));
	if (failed)
		return -1;
	if (*priv && private_bugs_skipped()) {
		log_warn("outbox: %s for bug %lld ('%s') not posted: the bug or its job is"
			 " private and [tracker] private_bugs = skip", r->kind, (long long)r->bug_id, r->marker);
		set_state(p->db, sql_outbox_final, r->id, 0,
			  "private ([tracker] private_bugs = skip)");
		return 0;
	}
	return without_keywords(p, r, NULL) ? 0 : 1;
}

/* The row did not land this flush (it waits for a retry): a failed step. */
static enum next not_landed(struct poster *p)
{
	p->failed++;
	return STOP_FLUSH;
}

static enum next post_row(struct poster *p, struct row *r)
{
	bool check = carries_comment(r);
	bool priv;
	int go = goes_out(p, r, &priv);

	if (go <= 0)
		return go < 0 ? not_landed(p) : NEXT_ROW;

	for (int try = 0;; try++) {
		long remote_id = 0;
		int landed = 0;

		if (check && r->attempts > 0) {
			landed = marker_landed(p, r, &remote_id);
			if (landed < 0 && (config_problem(&p->bz) ||
					   (p->bz.err != BZ_ERR_TRANSPORT && p->bz.err != BZ_ERR_SERVER &&
					    p->bz.err != BZ_ERR_MALFORMED)))
				return refused(p, r);
		}
		if (landed > 0) {
			log_info("outbox: %s for bug %lld ('%s') had already landed as comment %ld",
				 r->kind, (long long)r->bug_id, r->marker, remote_id);
			set_state(p->db, sql_outbox_sent, r->id, remote_id, r->refused);
			return NEXT_ROW;
		}
		if (landed == 0) {
			if (set_state(p->db, sql_outbox_sending, r->id, p->timeout + 1, NULL))
				return not_landed(p);
			r->attempts++;
			if (!send_row(p, r, priv, &remote_id)) {
				if (test_crash_hook())
					_exit(9);
				log_info("outbox: %s for bug %lld ('%s') posted%s", r->kind,
					 (long long)r->bug_id, r->marker, remote_id ? "" : " (update)");
				set_state(p->db, sql_outbox_sent, r->id, remote_id, r->refused);
				return NEXT_ROW;
			}
		}
		if (config_problem(&p->bz))
			return refused(p, r);
		if (keyword_refused(p, r)) {
			mirror_note_missing(p->db, p->bz.errmsg.ptr);
			if (without_keywords(p, r, p->bz.errmsg.ptr))
				return NEXT_ROW;
			continue;
		}
		if (landed == 0 && p->bz.err == BZ_ERR_TRANSPORT && p->bz.fail == HTTPC_FAIL_TIMEOUT) {
			/* the tracker may still be writing it: look only once it surely ended */
			log_warn("outbox: %s for bug %lld ('%s') timed out; checking again in %lds",
				 r->kind, (long long)r->bug_id, r->marker, p->timeout + 1);
			set_state(p->db, sql_outbox_retry, r->id, p->timeout + 1, p->bz.errmsg.ptr);
			return not_landed(p);
		}
		if (p->bz.err != BZ_ERR_TRANSPORT && p->bz.err != BZ_ERR_SERVER &&
		    p->bz.err != BZ_ERR_MALFORMED)
			return refused(p, r);
		/* may or may not have landed: check again before the next try */
		long delay = httpc_backoff_ms(p->backoff_ms, try);

		if (p->bz.retry_after >= 0 && p->bz.retry_after * 1000 > delay)
			delay = p->bz.retry_after * 1000;	/* 429/503 said when */
		if (try >= p->retries || p->bz.retry_after > 300 || !backoff(p, delay)) {
			long wait = httpc_backoff_ms(p->backoff_ms * 2, r->attempts) / 1000;

			if (p->bz.retry_after > wait)
				wait = p->bz.retry_after;

			log_warn("outbox: %s for bug %lld ('%s') not posted yet: %s; next try in %lds",
				 r->kind, (long long)r->bug_id, r->marker, p->bz.errmsg.ptr, wait);
			set_state(p->db, sql_outbox_retry, r->id, wait, p->bz.errmsg.ptr);
			return not_landed(p);
		}
		log_info("outbox: %s for bug %lld: %s; retrying", r->kind,
			 (long long)r->bug_id, p->bz.errmsg.ptr);
	}
}

/* What the tracker said about the bot's account, kept for the next flush and poll. */
static int save_bot(struct poster *p)
{
	if (!p->bot.dirty)
		return 0;
	if (db_begin(p->db))
		return -1;
	if (bot_save(&p->bot, p->db)) {
		db_rollback(p->db);
		return -1;
	}
	return db_commit(p->db);
}

int outbox_flush(struct db *db, const volatile sig_atomic_t *stop)
{
	struct poster p = { .db = db, .stop = stop };
	struct buf err = BUF_INIT;
	sqlite3_int64 after = 0;
	struct row r;
	int rc = 0, ret = -1;

	p.retries = (int)cfg_int("tracker.retries");
	p.backoff_ms = cfg_int("tracker.backoff_ms");
	p.timeout = cfg_int("tracker.timeout");
	if (bz_init_config(&p.bz, stop, &err)) {
		redact_buf(&err);
		log_error("outbox: %s", err.ptr);
		buf_release(&err);
		return -1;
	}
	bot_key(&p.bz, p.fingerprint);
	bot_init(&p.bot, &p.bz);
	if (bot_load(&p.bot, db))
		goto out;
	if (queue_held(&p)) {
		ret = 1;
		goto out;
	}
	while (!(stop && *stop) && (rc = next_row(db, after, &r)) > 0) {
		enum next n;

		if (!r.bug_id) {
			set_state(db, sql_outbox_final, r.id, 0, "no bug to write to");
			n = NEXT_ROW;
		} else {
			n = post_row(&p, &r);
		}
		after = r.id;
		row_release(&r);
		if (n == STOP_FLUSH)
			break;
	}
	if (rc < 0)
		p.failed++;
	ret = p.held ? 1 : p.failed ? -1 : 0;
	if (save_bot(&p))
		ret = -1;
out:
	bz_release(&p.bz);
	bot_release(&p.bot);
	buf_release(&err);
	return ret;
}
