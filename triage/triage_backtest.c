/*
 * triage_backtest: a fix tried on every kept series.
 *
 * Maintainers ask of a fix: does it apply, and does it work, on each
 * stable series?  When a job's patch turns a failure into a pass
 * (FAIL->PASS, a fix candidate), triage queues that patch with a baseline
 * run on every other kept series ([runner] bases; [triage] backtest), as
 * jobs of purpose 'backtest' whose parent is the fix's job: once per
 * candidate, so the fix's re-run queues none.  Each back-test changes no
 * bug state and posts no comment of its own; when the last one is done,
 * one comment carries the matrix (lib/backtest.h: series, kernel, applies?,
 * unpatched and patched verdicts), marker "bugbridge-backtest: job <fix>",
 * under a verdict line that says it in words ("works on 6.1 and 6.12",
 * "works on 6.1; does not apply to 6.6").
 */
#include "triage_backtest.h"
#include "triage_comment.h"
#include "backtest.h"
#include "bases.h"
#include "config.h"
#include "job_queue.h"
#include "job_record.h"
#include "log.h"
#include "outbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DB_SQL(sql_bt_queued_for,
       "SELECT 1 FROM jobs WHERE purpose = 'backtest' AND candidate_id = ? LIMIT 1");
DB_SQL(sql_bt_fix_of,
       "SELECT parent_id FROM jobs WHERE purpose = 'backtest' AND candidate_id = ?"
       " ORDER BY id LIMIT 1");

/* Is j a fix (its patch turned a failure into a pass) that was not back-tested yet? */
static bool wants_backtest(struct db *db, const struct job_record *j)
{
	sqlite3_stmt *st;
	bool queued;

	if (!cfg_bool("triage.backtest") || *j->purpose || !j->candidate_id ||
	    strcmp(job_str(j->change), "FAIL->PASS") || strcmp(job_str(j->verdict), "pass") ||
	    job_record_not_reached(j))
		return false;
	st = db_stmt(db, sql_bt_queued_for);
	if (!st)
		return false;
	sqlite3_bind_int64(st, 1, j->candidate_id);
	queued = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_reset(st);
	return !queued;
}

/*
 * j's patch with a baseline on every kept series but j's own; *queued how
 * many; each "<series> as job <id>" into said (when not NULL).
 */
static int queue_others(struct db *db, const struct job_record *j, int *queued, struct buf *said)
{
	struct base own, other;
	struct buf why = BUF_INIT;
	char **kept;
	int n, ret = 0;

	*queued = 0;
	if (base_parse(j->base, &own))
		return 0;
	kept = bases_kept(&n);
	buf_addf(&why, "back-test of job %lld's patch on every kept series", (long long)j->id);
	for (int i = 0; i < n && !ret; i++) {
		struct job_spec spec = { 0 };
		sqlite3_int64 id = 0;

		if (base_parse(kept[i], &other) || !strcmp(other.series, own.series))
			continue;
		spec.bug_id = j->bug_id;
		spec.candidate_id = j->candidate_id;
		spec.parent_id = j->id;
		spec.kind = "test";
		spec.purpose = "backtest";
		spec.base = kept[i];
		spec.base_reason = why.ptr;
		spec.patch_count = j->patch_count;
		spec.with_baseline = true;
		ret = job_enqueue(db, &spec, &id);
		if (!ret && said && id)
			buf_addf(said, "%s%s as job %lld", *queued ? ", " : "", other.series,
				 (long long)id);
		else if (!ret && said)	/* the budget's comment says why */
			buf_addf(said, "%s%s not (over the bug's budget)", *queued ? ", " : "",
				 other.series);
		(*queued)++;
	}
	if (!ret && *queued)
		log_info("backtest: job %lld: the fix queued on %d other series", (long long)j->id,
			 *queued);
	bases_free(kept, n);
	buf_release(&why);
	return ret;
}

/* What a row says of the fix: works (a failure fixed), passes, fails, no-apply or unknown. */
static const char *row_outcome(const struct backtest_row *r)
{
	if (!strcmp(r->applies, "no"))
		return "no-apply";
	if (strcmp(r->state, "done") || !strcmp(r->applies, "?"))
		return "unknown";
	if (strcmp(r->patched, "PASS"))
		return "fails";
	return !strncmp(r->unpatched, "FAIL", 4) ? "works" : "passes";
}

/* "6.1", "6.1 and 6.12", "6.1, 6.6 and 6.12": the series of rows whose outcome is `what`. */
static int series_with(const struct backtest *bt, const char *what, struct buf *out)
{
	int n = 0, total = 0;

	for (int i = 0; i < bt->n; i++)
		total += !strcmp(row_outcome(&bt->rows[i]), what);
	for (int i = 0; i < bt->n; i++) {
		if (strcmp(row_outcome(&bt->rows[i]), what))
			continue;
		if (n++)
			buf_addstr(out, n == total ? " and " : ", ");
		buf_addstr(out, bt->rows[i].series);
	}
	return n;
}

/* The verdict line: "works on 6.1 and 6.12", "works on 6.1; does not apply to 6.6". */
static void matrix_verdict(const struct job_record *fix, const struct backtest *bt,
			   struct buf *out)
{
	static const char *const outcomes[][3] = {
		{ "works", "works on ", "" },
		{ "passes", "passes on ", ", as does the unpatched kernel" },
		{ "fails", "fails on ", "" },
		{ "no-apply", "does not apply to ", "" },
		{ "unknown", "gave no verdict on ", "" },
	};
	struct buf names = BUF_INIT;
	bool first = true;

	/* a back-test asked for by a command may be of any patch, not only a fix */
	buf_addf(out, "bugbridge back-test of the %s: ",
		 !strcmp(job_str(fix->change), "FAIL->PASS") ? "fix" :
		 strcmp(fix->cand.kind, "patch") ? "series" : "patch");
	for (size_t i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++) {
		int n;

		buf_reset(&names);
		n = series_with(bt, outcomes[i][0], &names);
		if (!n)
			continue;
		buf_addf(out, "%s%s%s%s", first ? "" : "; ", outcomes[i][1], names.ptr,
			 n > 1 && *outcomes[i][2] ? ", as do the unpatched kernels" : outcomes[i][2]);
		first = false;
	}
	buf_addch(out, '\n');
	buf_release(&names);
}

int backtest_queue(struct db *db, const struct job_record *j)
{
	int queued;

	return wants_backtest(db, j) ? queue_others(db, j, &queued, NULL) : 0;
}

int backtest_request(struct db *db, const struct job_record *j, struct buf *answer)
{
	sqlite3_stmt *st = db_stmt(db, sql_bt_fix_of);
	struct buf said = BUF_INIT;
	sqlite3_int64 fix;
	int queued, ret;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, j->candidate_id);
	fix = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	if (fix) {	/* once per patch, asked for or not */
		buf_addf(answer, "already done: the patch was back-tested from job %lld; its table"
			 " is (or will be) the comment marked bugbridge-backtest: job %lld",
			 (long long)fix, (long long)fix);
		return 0;
	}
	ret = queue_others(db, j, &queued, &said);
	if (!ret && queued)
		buf_addf(answer, "queued the patch of job %lld, with the unpatched kernel beside"
			 " it, on %s; one table when they are done", (long long)j->id, said.ptr);
	else if (!ret)
		buf_addf(answer, "not done: there is no kept series but %s's own ([runner]"
			 " bases)", j->base);
	buf_release(&said);
	return ret;
}

static int post_matrix(struct db *db, const struct job_record *fix, const struct backtest *bt)
{
	struct buf text = BUF_INIT, marker = BUF_INIT;
	int ret;

	buf_addf(&marker, "bugbridge-backtest: job %lld", (long long)fix->id);
	matrix_verdict(fix, bt, &text);
	buf_addch(&text, '\n');
	if (fix->candidate_id) {
		buf_addstr(&text, "Patch:    ");
		triage_add_clean(&text, fix->cand.name, 200);
		buf_addf(&text, "\nsha256:   %s\n\n", fix->cand.sha256);
	}
	backtest_text(bt, &text);
	buf_addstr(&text, "\nJob:      ");
	triage_job_url(fix->id, &text);
	buf_addf(&text, "\n\n%s\n", marker.ptr);
	ret = outbox_add(db, "comment", fix->bug_id, fix->id, marker.ptr, text.ptr);
	if (!ret)
		log_info("backtest: job %lld: matrix of %d series queued as a comment",
			 (long long)fix->id, bt->n);
	buf_release(&text);
	buf_release(&marker);
	return ret;
}

int backtest_job_done(struct db *db, const struct job_record *j)
{
	struct job_record fix = JOB_RECORD_INIT;
	struct backtest bt;
	int ret = -1;

	if (!j->parent_id || job_record_load(db, j->parent_id, 0, &fix) <= 0) {
		error("backtest: job %lld has no fix job", (long long)j->id);
		return -1;
	}
	if (backtest_load(db, fix.id, &bt))
		goto out;
	ret = bt.pending ? 0 : post_matrix(db, &fix, &bt);
	backtest_release(&bt);
out:
	job_record_release(&fix);
	return ret;
}
