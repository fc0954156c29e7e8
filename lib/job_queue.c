/*
 * job_queue: insert queued jobs, in their lane and within their budgets.
 * See job_queue.h.
 */
#include "job_queue.h"
#include "job_budget.h"
#include "bases.h"
#include "config.h"
#include "log.h"
#include "wake.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

DB_SQL(sql_job_enqueue,
       "INSERT INTO jobs (bug_id, candidate_id, parent_id, kind, base, patch_count,"
       " with_baseline, state, base_reason, purpose, boot_args, account, lane, not_before,"
       " budget_day, held)"
       " VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?)");
DB_SQL(sql_job_parent_account, "SELECT account FROM jobs WHERE id = ?");
DB_SQL(sql_job_candidate_of,
       "SELECT source, ifnull(source_id, 0), name, patch_count FROM candidates WHERE id = ?");
/* What a bug says of its kernel: the fields, then its description (comment 0). */
DB_SQL(sql_job_bug_versions,
       "SELECT b.cf_kernel_version, b.version, IFNULL((SELECT substr(c.text, 1, 65536)"
       " FROM comments c WHERE c.bug_id = b.id AND c.count = 0 AND c.is_private = 0), '')"
       " FROM bugs b WHERE b.id = ?");

static void bind_id(sqlite3_stmt *st, int idx, sqlite3_int64 id)
{
	if (id)
		sqlite3_bind_int64(st, idx, id);
	else
		sqlite3_bind_null(st, idx);
}

/*
 * The base for a job that names none: the kept series nearest what its
 * bug says of its kernel (bases.h), else the default; and why.
 */
static void choose_base(struct db *db, sqlite3_int64 bug_id, struct buf *base, struct buf *why)
{
	sqlite3_stmt *st = bug_id ? db_stmt(db, sql_job_bug_versions) : NULL;
	struct buf def = BUF_INIT;
	char **kept;
	int n;

	bases_default(&def);
	kept = bases_kept(&n);
	if (st) {
		sqlite3_bind_int64(st, 1, bug_id);
		if (sqlite3_step(st) == SQLITE_ROW)
			base_choose(db_col_text(st, 0), db_col_text(st, 1), db_col_text(st, 2), kept,
				    n, def.ptr, base, why);
		sqlite3_reset(st);
	}
	if (!base->len) {
		buf_addstr(base, def.ptr);
		buf_addstr(why, bug_id ? "the bug is not one bugbridge watches: the default base"
			   : "no bug: the default base");
	}
	bases_free(kept, n);
	buf_release(&def);
}

bool job_boot_args_ok(const char *s)
{
	if (!s)
		return true;
	if (strlen(s) > 512)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.,:=- ", *s))
			return false;
	return true;
}

bool job_account_allowed(const char *account)
{
	int n = 0;
	char **list = config_split_list(cfg_str("triage.allow_commands"), &n);
	bool ok = false;

	for (int i = 0; i < n && !ok; i++)
		ok = *list[i] && !strcasecmp(list[i], account);
	config_list_free(list);
	return ok;
}

/* One job on its way in: who it is for, its lane, its budget. */
struct submit {
	const struct job_spec *spec;
	long now;
	struct buf account;
	int lane;			/* 0, 1, 2: 0020_queue.sql */
	struct buf what;		/* the job in words, for the tracker */
	int patches;			/* its candidate's patch count (0: none) */
	long long attachment;		/* its candidate's attachment (0: none) */
	bool over_cap;			/* refused for [queue] max_mbox_patches */
	struct budget_answer budget;
};

/* The spec's account, else its parent's, else the operator's (""). */
static int find_account(struct db *db, struct submit *s)
{
	sqlite3_stmt *st;
	int rc;

	if (s->spec->account || !s->spec->parent_id) {
		buf_addstr(&s->account, s->spec->account ? s->spec->account : "");
		return 0;
	}
	st = db_stmt(db, sql_job_parent_account);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, s->spec->parent_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		buf_addstr(&s->account, db_col_text(st, 0));
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Follow-up work continues a job: a back-test, a release or series
 * bisection step, or a re-run that triage queued (a "bugbridge: retest"
 * names its own account: that is someone's request).
 */
static int lane_of(const struct job_spec *spec, const char *account)
{
	const char *kind = spec->kind ? spec->kind : "test";

	if ((spec->purpose && *spec->purpose) || !strcmp(kind, "bisect-step") ||
	    (!strcmp(kind, "retest") && !spec->account && spec->parent_id))
		return 2;
	return *account && job_account_allowed(account) ? 0 : 1;
}

/* Tracker text in one line of ours: no control characters (no line of it can pose as a marker). */
static void add_clean(struct buf *out, const char *s, size_t max)
{
	size_t n = 0;

	for (; *s && n < max; s++, n++)
		buf_addch(out, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
	if (*s)
		buf_addstr(out, "...");
}

static void describe_candidate(struct db *db, struct submit *s)
{
	sqlite3_stmt *st = db_stmt(db, sql_job_candidate_of);
	const char *source;

	if (!st || !s->spec->candidate_id) {
		buf_addstr(&s->what, "a run of the unpatched kernel");
		return;
	}
	sqlite3_bind_int64(st, 1, s->spec->candidate_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		source = db_col_text(st, 0);
		s->patches = sqlite3_column_int(st, 3);
		if (!strcmp(source, "attachment")) {
			s->attachment = sqlite3_column_int64(st, 1);
			buf_addf(&s->what, "attachment %lld '", s->attachment);
		}
		else if (!strcmp(source, "comment"))
			buf_addstr(&s->what, "the patch in '");
		else
			buf_addstr(&s->what, "the patch '");
		add_clean(&s->what, db_col_text(st, 2), 80);
		buf_addch(&s->what, '\'');
	}
	sqlite3_reset(st);
}

/* The job in words: "attachment 14 'fix.patch'", "the back-test of job 9 on 6.12". */
static void describe(struct db *db, struct submit *s)
{
	const struct job_spec *spec = s->spec;
	const char *kind = spec->kind ? spec->kind : "test", *base = spec->base ? spec->base : "";
	long long parent = (long long)spec->parent_id;

	if (!strncmp(base, BASE_PKG, strlen(BASE_PKG)))
		base += strlen(BASE_PKG);
	if (spec->purpose && !strcmp(spec->purpose, "backtest"))
		buf_addf(&s->what, "the back-test of job %lld on %s", parent, base);
	else if (spec->purpose && !strcmp(spec->purpose, "release"))
		buf_addf(&s->what, "a release bisection step of job %lld (%s)", parent, base);
	else if (!strcmp(kind, "bisect-step"))
		buf_addf(&s->what, "a bisection step of job %lld (patches 1-%d)", parent,
			 spec->patch_count);
	else if (!strcmp(kind, "retest") && parent)
		buf_addf(&s->what, "the re-run of job %lld", parent);
	else
		describe_candidate(db, s);
	if (!s->what.len)
		buf_addf(&s->what, "a job of candidate %lld", (long long)spec->candidate_id);
}

/* The mbox cap, then the budgets: may it run now, later, or not at all? */
static int admit(struct db *db, struct submit *s)
{
	long cap;
	struct budget_ask ask = {
		.account = s->account.ptr, .bug_id = s->spec->bug_id,
		.first_verdict = s->lane < 2, .limited = s->lane == 1, .may_refuse = s->lane < 2,
	};

	if (!*s->account.ptr)
		return 0;	/* the operator's: no cap, no budget */
	cap = cfg_int("queue.max_mbox_patches");
	if (s->lane < 2 && cap > 0 && s->patches > cap) {
		s->budget.refused = s->over_cap = true;
		snprintf(s->budget.why, sizeof(s->budget.why),
			 "%d patches, more than the %ld one mbox or series may have", s->patches,
			 cap);
		return 0;
	}
	return job_budget_admit(db, &ask, s->now, &s->budget);
}

static void when(long t, struct buf *out)
{
	char day[11];

	budget_day_of(t, day);
	buf_addf(out, "%s 00:00 UTC", day);
}

void job_admission_text(const struct job_admission *adm, struct buf *out)
{
	if (adm->admit == JOB_REFUSED) {
		buf_addf(out, "not queued: %s", adm->why);
		return;
	}
	buf_addf(out, "queued as job %lld", (long long)adm->id);
	if (adm->admit == JOB_DEFERRED) {
		buf_addstr(out, "; it waits until ");
		when(adm->not_before, out);
		buf_addf(out, ": %s", adm->why);
	}
}

/* The line on the tracker for a job held or refused. */
static int note(struct db *db, const struct submit *s, const struct job_admission *adm)
{
	struct buf line = BUF_INIT;
	int ret;

	buf_addf(&line, "%s: ", s->what.ptr);
	if (adm->admit == JOB_DEFERRED) {
		buf_addstr(&line, "after ");
		when(adm->not_before, &line);
		buf_addf(&line, " (%s)", adm->why);
	} else {
		buf_addf(&line, "not tested (%s)", adm->why);
		if (s->attachment && !s->over_cap)
			buf_addf(&line, "; \"bugbridge: test %lld\" from an allowed account can"
				 " ask for it later", s->attachment);
	}
	ret = job_budget_note(db, s->spec->bug_id, s->now, line.ptr);
	buf_release(&line);
	return ret;
}

static int insert(struct db *db, const struct submit *s, const char *base, const char *why)
{
	const struct job_spec *spec = s->spec;
	sqlite3_stmt *st = db_stmt(db, sql_job_enqueue);

	if (!st)
		return -1;
	bind_id(st, 1, spec->bug_id);
	bind_id(st, 2, spec->candidate_id);
	bind_id(st, 3, spec->parent_id);
	db_bind_text(st, 4, spec->kind ? spec->kind : "test");
	db_bind_text(st, 5, base);
	sqlite3_bind_int(st, 6, spec->patch_count);
	sqlite3_bind_int(st, 7, spec->with_baseline);
	db_bind_text(st, 8, *why ? why : NULL);
	db_bind_text(st, 9, spec->purpose ? spec->purpose : "");
	db_bind_text(st, 10, spec->boot_args ? spec->boot_args : "");
	db_bind_text(st, 11, s->account.ptr);
	sqlite3_bind_int(st, 12, s->lane);
	sqlite3_bind_int64(st, 13, s->budget.not_before);
	db_bind_text(st, 14, *s->budget.day ? s->budget.day : NULL);
	db_bind_text(st, 15, s->budget.not_before ? s->budget.why : NULL);
	if (db_step_done(db, st))
		return error("job: cannot queue job for bug %lld", (long long)spec->bug_id);
	return 0;
}

int job_submit(struct db *db, const struct job_spec *spec, struct job_admission *adm)
{
	struct submit s = { .spec = spec, .now = (long)time(NULL), .account = BUF_INIT,
			    .what = BUF_INIT };
	struct buf base = BUF_INIT, why = BUF_INIT;
	int ret = -1;

	memset(adm, 0, sizeof(*adm));
	if (!job_boot_args_ok(spec->boot_args))
		return error("job: boot arguments '%s' refused: only [A-Za-z0-9_.,:=-] tokens",
			     spec->boot_args);
	if (find_account(db, &s))
		goto out;
	s.lane = lane_of(spec, s.account.ptr);
	describe(db, &s);
	if (admit(db, &s))
		goto out;
	adm->admit = s.budget.refused ? JOB_REFUSED : s.budget.not_before ? JOB_DEFERRED :
		     JOB_QUEUED;
	adm->not_before = s.budget.not_before;
	snprintf(adm->why, sizeof(adm->why), "%s", s.budget.why);
	if (adm->admit != JOB_REFUSED) {
		if (spec->base) {
			buf_addstr(&base, spec->base);
			if (spec->base_reason)
				buf_addstr(&why, spec->base_reason);
		} else {
			choose_base(db, spec->bug_id, &base, &why);
		}
		if (insert(db, &s, base.ptr, why.ptr))
			goto out;
		adm->id = db_last_id(db);
		db_wake_after_commit(db, WAKE_JOBS);
		log_info("job: queued job %lld for bug %lld on %s%s%s", (long long)adm->id,
			 (long long)spec->bug_id, base.ptr, adm->not_before ? ", held: " : "",
			 adm->not_before ? adm->why : "");
	} else {
		log_info("job: bug %lld: %s not queued: %s", (long long)spec->bug_id, s.what.ptr,
			 adm->why);
	}
	if (adm->admit != JOB_QUEUED && spec->bug_id && *s.account.ptr && !spec->caller_answers &&
	    note(db, &s, adm))
		goto out;
	ret = 0;
out:
	buf_release(&s.account);
	buf_release(&s.what);
	buf_release(&base);
	buf_release(&why);
	return ret;
}

int job_enqueue(struct db *db, const struct job_spec *spec, sqlite3_int64 *id)
{
	struct job_admission adm;
	int ret = job_submit(db, spec, &adm);

	if (id)
		*id = ret ? 0 : adm.id;
	return ret;
}
