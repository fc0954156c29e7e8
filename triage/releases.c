/*
 * releases: which releases of a series a failing test is in.
 *
 * When the unpatched kernel of a kept series fails tests (a job's
 * baseline run, or a job without a patch), maintainers ask: since when?
 * The archive keeps earlier releases of the series (apt-cache madison:
 * 6.1.170 to 6.1.192); the runner fetches any of them (runner/fetch.c).
 * A release bisection judges each release it builds on those tests
 * alone, as bisect.c judges a series' prefixes: the oldest release first
 * (one build says "present in every available release since X" when it
 * fails), then a binary search between the newest release that passes
 * and the oldest that fails, the root's own kernel being the first bad
 * end.  So n older releases cost at most 1 + ceil(log2 n) builds, and
 * [triage] release_bisect_builds bounds them: past it, the range reached
 * is the answer.
 *
 * Each probe is a job (purpose 'release', kind 'bisect-step', no patch,
 * the release as its base) whose parent is the root job.  The search
 * keeps its list and answer in release_bisections (0017_bases.sql) and
 * reads its progress from the done steps, so a restart simply goes on.
 * One per bug and series.  The answer is one comment, marker
 * "bugbridge-releases: job <root>", with a "#regzbot introduced: vX..vY"
 * line when it found a range.
 */
#include "releases.h"
#include "triage_comment.h"
#include "bases.h"
#include "config.h"
#include "job_queue.h"
#include "job_record.h"
#include "log.h"
#include "outbox.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DB_SQL(sql_rb_exists,
       "SELECT root_job, state, IFNULL(summary, ''), builds FROM release_bisections"
       " WHERE bug_id = ? AND series = ?");
DB_SQL(sql_rb_insert,
       "INSERT INTO release_bisections (root_job, bug_id, series, tests, releases, bad)"
       " VALUES (?, ?, ?, ?, ?, ?)");
DB_SQL(sql_rb_get,
       "SELECT series, tests, releases, state FROM release_bisections WHERE root_job = ?");
DB_SQL(sql_rb_finish,
       "UPDATE release_bisections SET state = ?2, good = ?3, bad = ?4, builds = ?5,"
       " summary = ?6, regzbot = ?7, finished_at = strftime('%s', 'now')"
       " WHERE root_job = ?1 AND state = 'running'");
DB_SQL(sql_rb_progress,
       "UPDATE release_bisections SET good = ?2, bad = ?3, builds = ?4 WHERE root_job = ?1");
DB_SQL(sql_rb_steps,
       "SELECT id, base, state, IFNULL(verdict, '') FROM jobs"
       " WHERE parent_id = ? AND purpose = 'release' ORDER BY id");

/* A search in progress: the row, and what the done steps say. */
struct rb {
	const struct job_record *root;
	char series[16];
	struct buf tests;		/* ", "-joined */
	char **rel;			/* older releases, oldest first (Debian versions) */
	int n;
	struct buf root_version;	/* the root's kernel: the first bad end */
	int good, bad;			/* indexes: -1 none; n: the root */
	int builds;
	bool pending;
	int stuck;			/* index of a release that gave no verdict, or -1 */
	struct buf stuck_why;
};

/* The tests the unpatched kernel failed ("a, b"); how many. */
static int failed_unpatched(const struct job_record *j, struct buf *names)
{
	const char *variant = j->candidate_id ? "baseline" : "patched";
	int n = 0;

	for (int i = 0; i < j->ntests; i++) {
		const struct job_record_test *t = &j->tests[i];

		if (strcmp(t->variant, variant) || strcmp(t->status, "fail"))
			continue;
		buf_addf(names, "%s%s", n++ ? ", " : "", t->name);
	}
	return n;
}

/* Does a bisection of this bug and series exist already?  What it is, into answer. */
static bool started(struct db *db, sqlite3_int64 bug_id, const char *series, struct buf *answer)
{
	sqlite3_stmt *st = db_stmt(db, sql_rb_exists);
	bool ret = true;	/* on a database error, start nothing */

	if (st) {
		sqlite3_bind_int64(st, 1, bug_id);
		db_bind_text(st, 2, series);
		ret = sqlite3_step(st) == SQLITE_ROW;
		if (ret && answer && !strcmp(db_col_text(st, 1), "running"))
			buf_addf(answer, "already running: the search of %s from job %lld (%d"
				 " builds so far); its answer comes as the comment marked"
				 " bugbridge-releases: job %lld", series,
				 (long long)sqlite3_column_int64(st, 0), sqlite3_column_int(st, 3),
				 (long long)sqlite3_column_int64(st, 0));
		else if (ret && answer)
			buf_addf(answer, "already done from job %lld: %s",
				 (long long)sqlite3_column_int64(st, 0), db_col_text(st, 2));
		sqlite3_reset(st);
	}
	return ret;
}

static int queue_step(struct db *db, const struct job_record *root, const char *series,
		      const char *version, const char *tests)
{
	struct job_spec spec = { 0 };
	struct buf base = BUF_INIT, why = BUF_INIT;
	int ret;

	buf_addf(&base, BASE_PKG "%s=%s", series, version);
	buf_addf(&why, "release bisection of job %lld (%s)", (long long)root->id, tests);
	spec.bug_id = root->bug_id;
	spec.parent_id = root->id;
	spec.kind = "bisect-step";
	spec.purpose = "release";
	spec.base = base.ptr;
	spec.base_reason = why.ptr;
	ret = job_enqueue(db, &spec, NULL);
	log_info("releases: job %lld: testing %s", (long long)root->id, base.ptr);
	buf_release(&base);
	buf_release(&why);
	return ret;
}

static void split_words(const char *text, char ***out, int *n)
{
	char *copy = xstrdup(text), *save = NULL;

	*out = NULL;
	*n = 0;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = xstrdup(w);
	}
	free(copy);
}

static void rb_release(struct rb *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->rel[i]);
	free(s->rel);
	buf_release(&s->tests);
	buf_release(&s->root_version);
	buf_release(&s->stuck_why);
}

/* "6.1.176-1" -> "6.1.176": the upstream release a regzbot line names. */
static void upstream(const char *debver, struct buf *out)
{
	const char *dash = strchr(debver, '-');

	buf_add(out, debver, dash ? (size_t)(dash - debver) : strlen(debver));
}

/* Post the answer once and close the row: state done or stopped. */
static int finish(struct db *db, struct rb *s, const char *state, const char *summary,
		  const char *regzbot)
{
	sqlite3_stmt *st = db_stmt(db, sql_rb_finish);
	struct buf text = BUF_INIT, marker = BUF_INIT;
	int ret = -1;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, s->root->id);
	db_bind_text(st, 2, state);
	if (s->good >= 0)
		db_bind_text(st, 3, s->rel[s->good]);
	else
		sqlite3_bind_null(st, 3);
	db_bind_text(st, 4, s->bad < s->n ? s->rel[s->bad] : s->root_version.ptr);
	sqlite3_bind_int(st, 5, s->builds);
	db_bind_text(st, 6, summary);
	if (regzbot)
		db_bind_text(st, 7, regzbot);
	else
		sqlite3_bind_null(st, 7);
	if (db_step_done(db, st))
		goto out;
	buf_addf(&marker, "bugbridge-releases: job %lld", (long long)s->root->id);
	buf_addstr(&text, "bugbridge release bisection: ");
	triage_add_clean(&text, summary, 400);
	buf_addstr(&text, "\n\nJudged on: ");
	triage_add_clean(&text, s->tests.ptr, 300);
	buf_addf(&text, " (failed on the unpatched %s of job %lld)\nReleases:  ",
		 s->root_version.ptr, (long long)s->root->id);
	/* the range, not every version: the bug page lists them */
	if (s->n > 1)
		buf_addf(&text, "%d of " BASE_PKG "%s in the archive, %s to %s", s->n, s->series,
			 s->rel[0], s->rel[s->n - 1]);
	else
		buf_addf(&text, BASE_PKG "%s %s in the archive", s->series, s->rel[0]);
	buf_addf(&text, ", then %s; %d built\n", s->root_version.ptr, s->builds);
	if (regzbot)
		buf_addf(&text, "\nTo track it with regzbot, a maintainer can send this line to"
			 " the list:\n%s\n", regzbot);
	buf_addstr(&text, "\nJob:       ");
	triage_job_url(s->root->id, &text);
	buf_addf(&text, "\n\n%s\n", marker.ptr);
	ret = outbox_add(db, "comment", s->root->bug_id, s->root->id, marker.ptr, text.ptr);
	log_info("releases: job %lld: %s", (long long)s->root->id, summary);
out:
	buf_release(&text);
	buf_release(&marker);
	return ret;
}

/*
 * Start the search for j's unpatched failure.  answer (a command asked;
 * NULL: triage on its own) gets what happened, in one line.
 */
static int start(struct db *db, const struct job_record *j, struct buf *answer)
{
	sqlite3_stmt *st;
	struct buf tests = BUF_INIT, list = BUF_INIT, err = BUF_INIT;
	struct release *rel = NULL;
	struct base b;
	struct kver top;
	int n = 0, older = 0, ret = 0;

	if (*j->purpose || !j->bug_id || base_parse(j->base, &b) || base_is_release(&b) ||
	    !kver_find(job_str(j->kernel_version), false, &top) || !failed_unpatched(j, &tests)) {
		if (answer)
			buf_addf(answer, "not done: job %lld's unpatched kernel failed no test of a"
				 " kept series", (long long)j->id);
		goto out;
	}
	if (started(db, j->bug_id, b.series, answer))
		goto out;
	if (releases_list(b.series, false, &rel, &n, &err)) {
		log_warn("releases: job %lld: no release bisection: %s", (long long)j->id, err.ptr);
		if (answer)
			buf_addf(answer, "not done: %s", err.ptr);
		goto out;
	}
	for (int i = 0; i < n; i++)
		if (kver_cmp(&rel[i].kv, &top) < 0)
			buf_addf(&list, "%s%s", older++ ? " " : "", rel[i].version);
	if (!older) {	/* "since the root's own kernel" would say nothing */
		log_info("releases: job %lld: the archive has no release of %s older than %s:"
			 " nothing to search", (long long)j->id, b.series, j->kernel_version);
		if (answer)
			buf_addf(answer, "nothing to search: the archive has no release of %s older"
				 " than %s", b.series, j->kernel_version);
		goto out;
	}
	st = db_stmt(db, sql_rb_insert);
	if (!st) {
		ret = -1;
		goto out;
	}
	sqlite3_bind_int64(st, 1, j->id);
	sqlite3_bind_int64(st, 2, j->bug_id);
	db_bind_text(st, 3, b.series);
	db_bind_text(st, 4, tests.ptr);
	db_bind_text(st, 5, list.ptr);
	db_bind_text(st, 6, j->kernel_version);
	ret = db_step_done(db, st);
	if (ret)
		goto out;
	log_info("releases: job %lld: %s fails %s; %d older release(s) of %s to search",
		 (long long)j->id, j->kernel_version, tests.ptr, older, b.series);
	ret = queue_step(db, j, b.series, rel[0].version, tests.ptr);
	if (!ret && answer) {
		buf_addf(answer, "started: which release of %s first fails ", b.series);
		triage_add_clean(answer, tests.ptr, 200);
		buf_addf(answer, " (failed by job %lld's unpatched %s): %d older release(s), at most"
			 " %ld builds, from %s; the answer comes as a comment", (long long)j->id,
			 j->kernel_version, older, cfg_int("triage.release_bisect_builds"),
			 rel[0].version);
	}
out:
	free(rel);
	buf_release(&tests);
	buf_release(&list);
	buf_release(&err);
	return ret;
}

/* status of test name in the step's unpatched (its only) variant, or NULL */
static const char *step_status(const struct job_record *step, const char *name)
{
	for (int i = 0; i < step->ntests; i++)
		if (!strcmp(step->tests[i].name, name))
			return step->tests[i].status;
	return NULL;
}

/* 1 good (every judged test passed), 0 bad (one failed), -1 says nothing (why in *why). */
static int judge(struct db *db, struct rb *s, sqlite3_int64 id, const char *verdict,
		 struct buf *why)
{
	struct job_record step = JOB_RECORD_INIT;
	char **names;
	int n, good = 1;

	buf_reset(why);
	if (strcmp(verdict, "pass") && strcmp(verdict, "fail")) {
		buf_addf(why, "%s", *verdict ? verdict : "no verdict");
		return -1;
	}
	if (job_record_load(db, id, JOB_LOAD_TESTS, &step) <= 0)
		return -1;
	split_words(s->tests.ptr, &names, &n);
	for (int i = 0; i < n; i++) {
		const char *st;
		size_t len = strlen(names[i]);

		if (len && names[i][len - 1] == ',')
			names[i][len - 1] = '\0';
		st = step_status(&step, names[i]);
		if (st && !strcmp(st, "fail"))
			good = 0;
		else if ((!st || strcmp(st, "pass")) && good > 0) {
			good = -1;
			buf_addf(why, "%s %s", names[i], st ? st : "did not run");
		}
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	job_record_release(&step);
	return good;
}

/* The step's release: its index in s->rel, or -1. */
static int release_index(const struct rb *s, const char *base)
{
	const char *eq = strchr(base, '=');

	for (int i = 0; eq && i < s->n; i++)
		if (!strcmp(eq + 1, s->rel[i]))
			return i;
	return -1;
}

static int rb_scan(struct db *db, struct rb *s)
{
	sqlite3_stmt *st = db_stmt(db, sql_rb_steps);
	struct { sqlite3_int64 id; int idx; char verdict[16]; } done[64];
	struct buf why = BUF_INIT;
	int rc, n = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, s->root->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *state = db_col_text(st, 2);
		int idx = release_index(s, db_col_text(st, 1));

		if (!strcmp(state, "queued") || !strcmp(state, "running"))
			s->pending = true;
		if (strcmp(state, "done") || idx < 0 || n >= 64)
			continue;
		done[n].id = sqlite3_column_int64(st, 0);
		done[n].idx = idx;
		snprintf(done[n].verdict, sizeof(done[n].verdict), "%s", db_col_text(st, 3));
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	s->builds = n;
	/* judged after the scan: judge() reads other statements */
	for (int i = 0; i < n; i++) {
		int good = judge(db, s, done[i].id, done[i].verdict, &why);

		if (good > 0 && done[i].idx > s->good)
			s->good = done[i].idx;
		else if (!good && done[i].idx < s->bad)
			s->bad = done[i].idx;
		else if (good < 0 && s->stuck < 0) {
			s->stuck = done[i].idx;
			buf_addstr(&s->stuck_why, why.ptr);
		}
	}
	buf_release(&why);
	return 0;
}

static int rb_load(struct db *db, const struct job_record *root, struct rb *s)
{
	sqlite3_stmt *st = db_stmt(db, sql_rb_get);
	int rc;

	memset(s, 0, sizeof(*s));
	s->root = root;
	s->good = -1;
	s->stuck = -1;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, root->id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && !strcmp(db_col_text(st, 3), "running")) {
		snprintf(s->series, sizeof(s->series), "%s", db_col_text(st, 0));
		buf_addstr(&s->tests, db_col_text(st, 1));
		split_words(db_col_text(st, 2), &s->rel, &s->n);
		/* the root's own kernel, not the row's "bad", which the search moves */
		buf_addstr(&s->root_version, job_str(root->kernel_version));
	}
	sqlite3_reset(st);
	s->bad = s->n;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	return rc == SQLITE_ROW && s->root_version.len ? 1 : 0;
}

/* "a", "a, b", "a, b, c and 4 more": the judged tests, for the verdict line. */
static void tests_named(const struct rb *s, struct buf *out)
{
	const char *p = s->tests.ptr;
	int n = 0;

	while (*p && n < 3) {
		size_t len = strcspn(p, ",");

		buf_addf(out, "%s%.*s", n++ ? ", " : "", (int)len, p);
		p += len;
		p += strspn(p, ", ");
	}
	if (*p) {
		int more = 1;

		for (; *p; p++)
			more += *p == ',';
		buf_addf(out, " and %d more", more);
	}
}

/* The answer once the search has one; else the next release to build. */
static int decide(struct db *db, struct rb *s)
{
	struct buf summary = BUF_INIT, regz = BUF_INIT, a = BUF_INIT, b = BUF_INIT;
	struct buf tests = BUF_INIT;
	const char *first_bad = s->bad < s->n ? s->rel[s->bad] : s->root_version.ptr;
	int ret;

	tests_named(s, &tests);
	if (s->bad == 0) {
		buf_addf(&summary, "%s %s in every available release of %s since %s", tests.ptr,
			 strchr(s->tests.ptr, ',') ? "fail" : "fails", s->series, first_bad);
		ret = finish(db, s, "done", summary.ptr, NULL);
		goto out;
	}
	if (s->stuck >= 0 && (s->good < 0 || (s->stuck > s->good && s->stuck < s->bad))) {
		buf_addf(&summary, "stopped: release %s gave no verdict on %s (%s)",
			 s->rel[s->stuck], tests.ptr, s->stuck_why.ptr);
		ret = finish(db, s, "stopped", summary.ptr, NULL);
		goto out;
	}
	if (s->good < 0) {		/* the oldest is not judged yet */
		ret = queue_step(db, s->root, s->series, s->rel[0], s->tests.ptr);
		goto out;
	}
	upstream(s->rel[s->good], &a);
	upstream(first_bad, &b);
	buf_addf(&regz, "#regzbot introduced: v%s..v%s", a.ptr, b.ptr);
	buf_addf(&summary, "%s %s introduced between %s and %s", tests.ptr,
		 strchr(s->tests.ptr, ',') ? "were" : "was", s->rel[s->good], first_bad);
	if (s->bad - s->good <= 1) {
		ret = finish(db, s, "done", summary.ptr, regz.ptr);
	} else if (s->builds >= cfg_int("triage.release_bisect_builds")) {
		buf_addf(&summary, " (not narrowed further: %d builds, [triage]"
			 " release_bisect_builds)", s->builds);
		ret = finish(db, s, "done", summary.ptr, regz.ptr);
	} else {
		ret = queue_step(db, s->root, s->series, s->rel[s->good + (s->bad - s->good) / 2],
				 s->tests.ptr);
	}
out:
	buf_release(&summary);
	buf_release(&tests);
	buf_release(&regz);
	buf_release(&a);
	buf_release(&b);
	return ret;
}

int releases_advance(struct db *db, const struct job_record *root)
{
	struct job_record full = JOB_RECORD_INIT;
	struct rb s;
	int rc, ret = -1;

	/* the root's own test results: it is the first bad end */
	if (job_record_load(db, root->id, JOB_LOAD_TESTS, &full) <= 0)
		return -1;
	rc = rb_load(db, &full, &s);
	if (rc <= 0) {
		ret = rc;	/* 0: finished already, or none */
		goto out;
	}
	if (rb_scan(db, &s))
		goto out;
	if (s.pending) {
		ret = 0;
		goto out;
	}
	ret = decide(db, &s);
	if (!ret && (s.good >= 0 || s.bad < s.n)) {
		sqlite3_stmt *st = db_stmt(db, sql_rb_progress);

		if (st) {	/* for the bug page while it runs */
			sqlite3_bind_int64(st, 1, root->id);
			if (s.good >= 0)
				db_bind_text(st, 2, s.rel[s.good]);
			else
				sqlite3_bind_null(st, 2);
			db_bind_text(st, 3, s.bad < s.n ? s.rel[s.bad] : s.root_version.ptr);
			sqlite3_bind_int(st, 4, s.builds);
			db_step_done(db, st);
		}
	}
out:
	rb_release(&s);
	job_record_release(&full);
	return ret;
}

int releases_start(struct db *db, const struct job_record *j)
{
	return cfg_bool("triage.release_bisect") ? start(db, j, NULL) : 0;
}

int releases_request(struct db *db, const struct job_record *j, struct buf *answer)
{
	return start(db, j, answer);
}

int releases_job_done(struct db *db, const struct job_record *step)
{
	struct job_record root = JOB_RECORD_INIT;
	int ret;

	if (!step->parent_id || job_record_load(db, step->parent_id, 0, &root) <= 0)
		return error("releases: step %lld has no root job", (long long)step->id);
	ret = releases_advance(db, &root);
	job_record_release(&root);
	return ret;
}
