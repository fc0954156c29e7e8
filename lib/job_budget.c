/*
 * job_budget: the day a job counts against, and the comment that says
 * what waits.  See job_budget.h.
 */
#include "job_budget.h"
#include "config.h"
#include "log.h"
#include "outbox.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define DAY 86400L

/* What counts: every job of the day but the cancelled and the infrastructure's failures. */
#define COUNTED " AND state <> 'cancelled' AND ifnull(verdict, '') <> 'infra-error'"

DB_SQL(sql_budget_account,
       "SELECT count(*) FROM jobs WHERE budget_day = ?1 AND account = ?2 AND lane < 2" COUNTED);
DB_SQL(sql_budget_bug,
       "SELECT count(*) FROM jobs WHERE budget_day = ?1 AND bug_id = ?2" COUNTED);
DB_SQL(sql_budget_note_add,
       "INSERT INTO outbox (kind, bug_id, marker, payload) VALUES ('comment', ?1, ?2, ?3)"
       " ON CONFLICT (marker) DO NOTHING");
/* A later line joins the comment before its marker, until the poster has tried it. */
DB_SQL(sql_budget_note_join,
       "UPDATE outbox SET payload = substr(payload, 1, length(payload) - length(?2)) || ?3 || ?2"
       " WHERE marker = ?1 AND state = 'pending' AND attempts = 0"
       " AND length(payload) < ?4 AND instr(payload, ?3) = 0");

/* Past this the comment takes no more lines: the queue page has them all. */
#define NOTE_MAX 3000

void budget_day_of(long t, char day[11])
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(day, 11, "%Y-%m-%d", &tm);
}

/* The jobs counted against one budget on day (a count statement, ?2 bound by the caller). */
static int count(struct db *db, sqlite3_stmt *st, const char *day, long *n)
{
	int rc;

	db_bind_text(st, 1, day);
	rc = sqlite3_step(st);
	*n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return error("job: cannot count the budget of %s: %s", day, db_errmsg(db));
	return 0;
}

/* Is there room on day?  *which says whose budget is used when not. */
static int room(struct db *db, const struct budget_ask *ask, const char *day, bool *ok,
		const char **which, long *limit)
{
	long acct = cfg_int("queue.account_jobs_per_day"), bug = cfg_int("queue.bug_jobs_per_day");
	sqlite3_stmt *st;
	long n;

	*ok = true;
	if (ask->first_verdict && ask->limited && acct > 0) {
		st = db_stmt(db, sql_budget_account);
		if (!st)
			return -1;
		db_bind_text(st, 2, ask->account);
		if (count(db, st, day, &n))
			return -1;
		if (n >= acct) {
			*ok = false, *which = "the sender's", *limit = acct;
			return 0;
		}
	}
	if (ask->bug_id && bug > 0) {
		st = db_stmt(db, sql_budget_bug);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 2, ask->bug_id);
		if (count(db, st, day, &n))
			return -1;
		if (n >= bug)
			*ok = false, *which = "the bug's", *limit = bug;
	}
	return 0;
}

int job_budget_admit(struct db *db, const struct budget_ask *ask, long now,
		     struct budget_answer *ans)
{
	long midnight = now - now % DAY, limit = 0;
	long days = ask->may_refuse ? cfg_int("queue.defer_days") : 366;
	const char *which = "";
	char day[11];

	memset(ans, 0, sizeof(*ans));
	if (!*ask->account)
		return 0;
	for (long d = 0; d <= days; d++) {
		const char *w = "";
		long lim = 0;
		bool ok;

		budget_day_of(midnight + d * DAY, day);
		if (room(db, ask, day, &ok, &w, &lim))
			return -1;
		if (!d)
			which = w, limit = lim;	/* today's is the reason it waits */
		if (ok) {
			memcpy(ans->day, day, sizeof(ans->day));
			ans->not_before = d ? midnight + d * DAY : 0;
			if (d)
				snprintf(ans->why, sizeof(ans->why), "%s %ld jobs a day are used",
					 which, limit);
			return 0;
		}
	}
	ans->refused = true;
	snprintf(ans->why, sizeof(ans->why), "%s %ld jobs a day are used up to %s", which, limit,
		 day);
	return 0;
}

int job_budget_note(struct db *db, sqlite3_int64 bug_id, long now, const char *line)
{
	struct buf marker = BUF_INIT, text = BUF_INIT, tail = BUF_INIT, item = BUF_INIT;
	sqlite3_stmt *st = db_stmt(db, sql_budget_note_add);
	char day[11];
	int ret = -1;

	if (!st)
		goto out;
	budget_day_of(now, day);
	buf_addf(&marker, "bugbridge-budget: bug %lld %s", (long long)bug_id, day);
	buf_addf(&item, "- %s\n", line);
	buf_addf(&tail, "Patches sent later today meet the same limits, without another comment."
		 "\n\n%s\n", marker.ptr);
	buf_addf(&text, "bugbridge did not test these now: it limits what one account or bug may"
		 " ask of it (per UTC day).\n%s%s", item.ptr, tail.ptr);
	sqlite3_bind_int64(st, 1, bug_id);
	db_bind_text(st, 2, marker.ptr);
	db_bind_text(st, 3, text.ptr);
	if (db_step_done(db, st))
		goto out;
	if (sqlite3_changes(db->h) == 0) {
		st = db_stmt(db, sql_budget_note_join);
		if (!st)
			goto out;
		db_bind_text(st, 1, marker.ptr);
		db_bind_text(st, 2, tail.ptr);
		db_bind_text(st, 3, item.ptr);
		sqlite3_bind_int(st, 4, NOTE_MAX);
		if (db_step_done(db, st))
			goto out;
	}
	log_info("job: bug %lld: %s", (long long)bug_id, line);
	ret = 0;
out:
	buf_release(&marker);
	buf_release(&text);
	buf_release(&tail);
	buf_release(&item);
	return ret;
}
