/*
 * triage_comment: the result comment of a finished job, written for a
 * maintainer who gives it ten seconds.  The first line is the verdict and
 * what changed against the unpatched baseline; then the patch, the kernel,
 * the time and accelerator; a table of test cases; the failure signatures;
 * the link to the job page; and last the marker line the poster and the
 * poller recognise ("bugbridge-result: job <id>").
 *
 * Patch names, test names and signature titles come from attachments and
 * guest output, so every one goes through triage_add_clean(): no control
 * characters, hence no line of theirs can pose as a marker line.
 */
#include "triage.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Room kept for the link and marker when the body is cut short. */
#define TAIL_ROOM 512

struct cm_job {
	sqlite3_int64 id, candidate_id;
	char *kind, *base, *verdict, *change, *detail, *accel, *version;
	char *cand_name, *cand_sha, *cand_kind;
	int patch_count, cand_patches;
	long long started, finished;
};

DB_SQL(sql_cm_job,
       "SELECT j.id, IFNULL(j.candidate_id, 0), j.kind, j.base, IFNULL(j.verdict, ''),"
       " IFNULL(j.change, ''), IFNULL(j.verdict_detail, ''), IFNULL(j.accel, ''),"
       " IFNULL(j.kernel_version, ''), j.patch_count, IFNULL(c.name, ''),"
       " IFNULL(c.sha256, ''), IFNULL(c.kind, ''), IFNULL(c.patch_count, 0),"
       " IFNULL(j.started_at, 0), IFNULL(j.finished_at, 0)"
       " FROM jobs j LEFT JOIN candidates c ON c.id = j.candidate_id WHERE j.id = ?");
DB_SQL(sql_cm_tests,
       "SELECT name, MAX(CASE WHEN variant = 'baseline' THEN status END),"
       " MAX(CASE WHEN variant = 'patched' THEN status END),"
       " MAX(CASE WHEN variant = 'patched' THEN change END),"
       " MAX(CASE WHEN variant = 'patched' THEN runs END),"
       " MAX(CASE WHEN variant = 'patched' THEN failures END)"
       " FROM test_results WHERE job_id = ? GROUP BY name ORDER BY name");
DB_SQL(sql_cm_sigs,
       "SELECT variant, kind, title, frames, hash FROM signatures WHERE job_id = ?"
       " ORDER BY variant DESC, id");

static void cm_job_release(struct cm_job *j)
{
	free(j->kind);
	free(j->base);
	free(j->verdict);
	free(j->change);
	free(j->detail);
	free(j->accel);
	free(j->version);
	free(j->cand_name);
	free(j->cand_sha);
	free(j->cand_kind);
	memset(j, 0, sizeof(*j));
}

static char *col_dup(sqlite3_stmt *st, int col)
{
	return xstrdup(db_col_text(st, col));
}

static int cm_job_load(struct db *db, sqlite3_int64 id, struct cm_job *j)
{
	sqlite3_stmt *st = db_stmt(db, sql_cm_job);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return error("triage: no job %lld", (long long)id);
	}
	j->id = sqlite3_column_int64(st, 0);
	j->candidate_id = sqlite3_column_int64(st, 1);
	j->kind = col_dup(st, 2);
	j->base = col_dup(st, 3);
	j->verdict = col_dup(st, 4);
	j->change = col_dup(st, 5);
	j->detail = col_dup(st, 6);
	j->accel = col_dup(st, 7);
	j->version = col_dup(st, 8);
	j->patch_count = sqlite3_column_int(st, 9);
	j->cand_name = col_dup(st, 10);
	j->cand_sha = col_dup(st, 11);
	j->cand_kind = col_dup(st, 12);
	j->cand_patches = sqlite3_column_int(st, 13);
	j->started = sqlite3_column_int64(st, 14);
	j->finished = sqlite3_column_int64(st, 15);
	sqlite3_reset(st);
	return 0;
}

void triage_add_clean(struct buf *out, const char *s, size_t max)
{
	size_t n = 0;

	for (; s && *s && n < max; s++, n++)
		buf_addch(out, iscntrl((unsigned char)*s) ? ' ' : *s);
	if (s && *s)
		buf_addstr(out, "...");
}

void triage_job_url(sqlite3_int64 job_id, struct buf *out)
{
	const char *base = cfg_str("web.base_url");
	size_t n = strlen(base);

	if (n) {
		while (n && base[n - 1] == '/')
			n--;
		buf_add(out, base, n);
	} else {
		buf_addf(out, "http://%s", cfg_str("web.listen"));
	}
	buf_addf(out, "/job/%lld", (long long)job_id);
}

static void upper(struct buf *out, const char *s)
{
	for (; *s; s++)
		buf_addch(out, toupper((unsigned char)*s));
}

/* Test names whose per-test change is `change`, comma-separated. */
static int tests_with_change(struct db *db, sqlite3_int64 id, const char *change,
			     const char *status, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_cm_tests);
	int n = 0;

	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *ch = db_col_text(st, 3);
		const char *patched = db_col_text(st, 2);
		/* a baseline-only job's results may all be the baseline's */
		const char *mine = *patched ? patched : db_col_text(st, 1);

		if (change ? strcmp(ch, change) : strcmp(mine, status))
			continue;
		if (n++ < 8) {
			if (n > 1)
				buf_addstr(out, ", ");
			triage_add_clean(out, db_col_text(st, 0), 80);
		}
	}
	sqlite3_reset(st);
	if (n > 8)
		buf_addf(out, " and %d more", n - 8);
	return n;
}

static const char *patch_word(const struct cm_job *j)
{
	return strcmp(j->cand_kind, "patch") ? "series" : "patch";
}

static void headline(struct db *db, const struct cm_job *j, struct buf *out)
{
	struct buf names = BUF_INIT;
	const char *v = j->verdict;

	if (!strcmp(v, "apply-failed")) {
		buf_addf(out, "APPLY FAILED: this %s does not apply to %s", patch_word(j), j->base);
	} else if (!strcmp(v, "build-failed")) {
		buf_addf(out, "BUILD FAILED: the kernel does not build with this %s", patch_word(j));
	} else if (!strcmp(v, "boot-timeout") || !strcmp(v, "panic")) {
		upper(out, v);
		buf_addf(out, ": the %s kernel did not finish the suite",
			 j->candidate_id ? "patched" : "unpatched");
	} else if (!strcmp(j->change, "FAIL->PASS")) {
		tests_with_change(db, j->id, "FAIL->PASS", NULL, &names);
		buf_addf(out, "FAIL->PASS: this %s fixes %s", patch_word(j),
			 names.len ? names.ptr : "the baseline's failure");
	} else if (!strcmp(j->change, "PASS->FAIL")) {
		tests_with_change(db, j->id, "PASS->FAIL", NULL, &names);
		buf_addf(out, "PASS->FAIL: this %s breaks %s", patch_word(j),
			 names.len ? names.ptr : "the suite");
		buf_reset(&names);
		/* a regression outranks a fix, but the fix is news too */
		if (tests_with_change(db, j->id, "FAIL->PASS", NULL, &names))
			buf_addf(out, " (it fixes %s)", names.ptr);
	} else if (!strcmp(j->change, "FAIL->FAIL")) {
		tests_with_change(db, j->id, NULL, "fail", &names);
		buf_addf(out, "FAIL->FAIL: still failing with this %s%s%s", patch_word(j),
			 names.len ? ": " : "", names.ptr);
	} else if (!strcmp(j->change, "PASS->PASS")) {
		buf_addf(out, "PASS->PASS: no change against %s", j->base);
	} else if (!j->candidate_id) {
		tests_with_change(db, j->id, NULL, "fail", &names);
		if (!strcmp(v, "pass"))
			buf_addf(out, "PASS: the unpatched %s passes the suite", j->base);
		else
			buf_addf(out, "FAIL: the unpatched %s fails %s", j->base,
				 names.len ? names.ptr : "the suite");
	} else if (!strcmp(j->kind, "retest")) {
		tests_with_change(db, j->id, NULL, "fail", &names);
		if (!strcmp(v, "pass"))
			buf_addf(out, "PASS again on a re-run: the fix holds");
		else
			buf_addf(out, "%s on a re-run: the fix does not hold%s%s",
				 !strcmp(v, "fail") ? "FAIL" : v, names.len ? ", failing " : "",
				 names.ptr);
	} else {
		tests_with_change(db, j->id, NULL, "fail", &names);
		upper(out, v);
		if (names.len)
			buf_addf(out, " with this %s: %s fails", patch_word(j), names.ptr);
		else
			buf_addf(out, " with this %s", patch_word(j));
	}
	buf_release(&names);
}

static void add_duration(struct buf *out, long long s)
{
	if (s >= 3600)
		buf_addf(out, "%lldh%02lldm%02llds", s / 3600, s / 60 % 60, s % 60);
	else if (s >= 60)
		buf_addf(out, "%lldm%02llds", s / 60, s % 60);
	else
		buf_addf(out, "%llds", s);
}

static void facts(const struct cm_job *j, struct buf *out)
{
	if (j->candidate_id) {
		buf_addf(out, "%-10s", strcmp(j->cand_kind, "patch") ? "Series:" : "Patch:");
		triage_add_clean(out, j->cand_name[0] ? j->cand_name : "(unnamed)", 200);
		if (j->cand_patches > 1) {
			if (j->patch_count > 0 && j->patch_count < j->cand_patches)
				buf_addf(out, " (patches 1-%d of %d)", j->patch_count,
					 j->cand_patches);
			else
				buf_addf(out, " (%d patches)", j->cand_patches);
		}
		buf_addf(out, "\n%-10s%s\n", "sha256:", j->cand_sha);
	}
	buf_addf(out, "%-10s%s", "Kernel:", j->base);
	if (j->version[0]) {
		buf_addstr(out, ", ");
		triage_add_clean(out, j->version, 100);
	}
	buf_addstr(out, "\n");
	buf_addf(out, "%-10s", "Run:");
	if (j->accel[0])
		upper(out, j->accel);
	else
		buf_addstr(out, "unknown accelerator");
	if (j->finished > j->started && j->started) {
		buf_addstr(out, ", ");
		add_duration(out, j->finished - j->started);
	}
	if (!strcmp(j->kind, "retest"))
		buf_addstr(out, " (re-run)");
	buf_addstr(out, "\n");
	if (j->detail[0] && strcmp(j->verdict, "pass")) {
		buf_addf(out, "%-10s", "Detail:");
		triage_add_clean(out, j->detail, 300);
		buf_addstr(out, "\n");
	}
}

static const char *shown(const char *status)
{
	if (!*status)
		return "-";
	if (!strcmp(status, "pass"))
		return "PASS";
	if (!strcmp(status, "fail"))
		return "FAIL";
	if (!strcmp(status, "skip"))
		return "SKIP";
	if (!strcmp(status, "flaky"))
		return "FLAKY";
	return "?";
}

/* Untrusted text, cleaned, padded with blanks to width columns. */
static void add_cell(struct buf *out, const char *text, size_t width)
{
	size_t before = out->len;

	triage_add_clean(out, text, 60);
	for (size_t w = out->len - before; w < width; w++)
		buf_addch(out, ' ');
}

static int table(struct db *db, const struct cm_job *j, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_cm_tests);
	bool both = j->candidate_id && j->change[0];
	int n = 0, npass = 0, nfail = 0, nskip = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, j->id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *base = db_col_text(st, 1), *patched = db_col_text(st, 2);
		const char *mine = j->candidate_id ? patched : (*patched ? patched : base);

		if (!n++)
			buf_addf(out, "\n  %-30s %s\n", "Test case",
				 both ? "baseline  patched" : "result");
		npass += !strcmp(mine, "pass");
		nfail += !strcmp(mine, "fail");
		nskip += !strcmp(mine, "skip");
		buf_addstr(out, "  ");
		add_cell(out, db_col_text(st, 0), 30);
		if (both)
			buf_addf(out, " %-9s %s", shown(base), shown(patched));
		else
			buf_addf(out, " %s", shown(mine));
		if (!strcmp(mine, "flaky"))
			buf_addf(out, " (%d of %d runs failed)", sqlite3_column_int(st, 5),
				 sqlite3_column_int(st, 4));
		buf_addch(out, '\n');
	}
	sqlite3_reset(st);
	if (n)
		buf_addf(out, "  %d passed, %d failed, %d skipped%s\n", npass, nfail, nskip,
			 j->candidate_id ? " (patched)" : "");
	return 0;
}

static int signatures(struct db *db, sqlite3_int64 id, struct buf *out)
{
	sqlite3_stmt *st = db_stmt(db, sql_cm_sigs);
	int n = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *frames = db_col_text(st, 3);
		int nframes = 0;

		if (!n++)
			buf_addstr(out, "\nFailure signatures:\n");
		buf_addf(out, "  [%s] ", db_col_text(st, 0));
		triage_add_clean(out, db_col_text(st, 1), 20);
		buf_addstr(out, ": ");
		triage_add_clean(out, db_col_text(st, 2), 200);
		buf_addf(out, " (%.12s)\n", db_col_text(st, 4));
		while (*frames && nframes++ < 5) {
			const char *nl = strchr(frames, '\n');
			size_t len = nl ? (size_t)(nl - frames) : strlen(frames);
			char *frame = xstrndup(frames, len);

			buf_addstr(out, "      ");
			triage_add_clean(out, frame, 120);
			buf_addch(out, '\n');
			free(frame);
			frames += len + (nl ? 1 : 0);
		}
	}
	sqlite3_reset(st);
	return 0;
}

int triage_comment(struct db *db, sqlite3_int64 job_id, struct buf *out)
{
	struct cm_job j = { 0 };
	struct buf body = BUF_INIT;
	int ret = -1;

	buf_reset(out);
	if (cm_job_load(db, job_id, &j))
		goto out;
	if (!strcmp(j.verdict, "infra-error") || !j.verdict[0] ||
	    !strcmp(j.kind, "bisect-step")) {
		ret = 1;
		goto out;
	}
	buf_init(&body, TRIAGE_COMMENT_MAX - TAIL_ROOM);
	buf_addstr(&body, "bugbridge ");
	headline(db, &j, &body);
	buf_addstr(&body, "\n\n");
	facts(&j, &body);
	if (table(db, &j, &body) || signatures(db, job_id, &body))
		goto out;
	buf_addstr(out, body.ptr);
	if (body.overflow)
		buf_addstr(out, "\n(cut short: see the job page for everything)\n");
	buf_addstr(out, "\nJob:      ");
	triage_job_url(job_id, out);
	buf_addf(out, "\n\nbugbridge-result: job %lld\n", (long long)job_id);
	ret = 0;
out:
	cm_job_release(&j);
	buf_release(&body);
	return ret;
}
