/*
 * bisect: which patch of a series breaks the suite.
 *
 * A job of an n-patch series whose baseline passes and whose full series
 * fails has tested both ends: prefix 0 is good, prefix n is bad.  Binary
 * search over the prefixes then needs at most ceil(log2 n) more runs, each
 * a job of kind 'bisect-step' with patch_count = k and parent_id = the root
 * job.  The runner applies only the first k patches and reuses the tree and
 * build objects of the previous step, so a step costs an incremental build.
 *
 * The search keeps no state of its own: the done steps under the root are
 * the state (good = the longest passing prefix, bad = the shortest failing
 * one), so a crash or a restart simply continues.  When bad = good + 1 the
 * answer is posted once, marker "bugbridge-bisect: job <root>".
 *
 * A step is judged on the tests the series broke (passed on the root's
 * baseline, failed with every patch), not on a clean base: stock 6.1 always
 * fails sr-capacity (the live sr bug), so a verdict over the whole suite
 * would make every prefix bad.  A step whose suite failed is good when
 * every one of those tests passed in it.  With no such test (the baseline
 * was clean and the series failed to build or boot, say) the verdict
 * decides, as a clean base makes it mean the same.
 */
#include "bisect.h"
#include "triage_comment.h"
#include "xalloc.h"
#include "job_queue.h"
#include "job_record.h"
#include "log.h"
#include "outbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bisect_next(int good, int bad)
{
	if (bad - good <= 1)
		return 0;
	return good + (bad - good) / 2;
}

DB_SQL(sql_bs_steps,
       "SELECT id, patch_count, state, IFNULL(verdict, '') FROM jobs"
       " WHERE parent_id = ? AND kind = 'bisect-step' ORDER BY patch_count");

/* What bisection reads of a job besides the row: whether its baseline failed. */
#define BISECT_LOAD (JOB_LOAD_TESTS | JOB_LOAD_SIGS)

/* The number of patches in the job's candidate (1 without one). */
static int series_len(const struct job_record *j)
{
	return j->candidate_id ? j->cand.patch_count : 1;
}

/* The suite ran (or the build ran) and the patched kernel did not pass. */
static bool is_bad(const char *verdict)
{
	return !strcmp(verdict, "fail") || !strcmp(verdict, "panic") ||
	       !strcmp(verdict, "boot-timeout") || !strcmp(verdict, "build-failed");
}

/* The unpatched end failed nothing: the whole-suite verdict can judge a step. */
static bool baseline_clean(const struct job_record *j)
{
	return !job_record_failed(j, "baseline");
}

/* status of test name in variant of j, or NULL */
static const char *test_status(const struct job_record *j, const char *variant,
			       const char *name)
{
	for (int i = 0; i < j->ntests; i++)
		if (!strcmp(j->tests[i].variant, variant) && !strcmp(j->tests[i].name, name))
			return j->tests[i].status;
	return NULL;
}

/*
 * The tests the series broke: failed with every patch, passed on the
 * baseline.  Returns how many; each name once into names, ", "-joined.
 */
static int broken_tests(const struct job_record *j, struct buf *names)
{
	int n = 0;

	for (int i = 0; i < j->ntests; i++) {
		const struct job_record_test *t = &j->tests[i];
		const char *base;

		if (strcmp(t->variant, "patched") || strcmp(t->status, "fail"))
			continue;
		base = test_status(j, "baseline", t->name);
		if (!base || strcmp(base, "pass"))
			continue;
		if (names)
			buf_addf(names, "%s%s", n ? ", " : "", t->name);
		n++;
	}
	return n;
}

/* Does this finished job start a bisection (both ends known, good and bad)? */
static bool starts_bisection(const struct job_record *j)
{
	int n = series_len(j);

	if ((strcmp(j->kind, "test") && strcmp(j->kind, "bisect")) || n <= 1 ||
	    (j->patch_count != 0 && j->patch_count < n) || !is_bad(job_str(j->verdict)))
		return false;
	if (broken_tests(j, NULL))
		return true;
	return baseline_clean(j) && !strncmp(job_str(j->change), "PASS->", 6);
}

struct bs_state {
	int good, bad, steps;
	bool pending, stuck;		/* a step queued/running; a step that says nothing */
	int stuck_at;
};

/* 1 good, 0 bad, -1 says nothing (infra error, the tests did not run). */
static int step_good(struct db *db, const struct job_record *root, sqlite3_int64 id,
		     const char *verdict)
{
	struct job_record step = JOB_RECORD_INIT;
	int good = 1;

	if (!strcmp(verdict, "pass"))
		return 1;
	if (!is_bad(verdict))
		return -1;
	if (strcmp(verdict, "fail") || !broken_tests(root, NULL))
		return 0;	/* no build, no boot; or a clean base: the verdict decides */
	if (job_record_load(db, id, JOB_LOAD_TESTS, &step) <= 0)
		return -1;
	for (int i = 0; i < root->ntests && good >= 0; i++) {
		const struct job_record_test *t = &root->tests[i];
		const char *base = test_status(root, "baseline", t->name), *now;

		if (strcmp(t->variant, "patched") || strcmp(t->status, "fail") ||
		    !base || strcmp(base, "pass"))
			continue;
		now = test_status(&step, "patched", t->name);
		if (now && !strcmp(now, "fail"))
			good = 0;
		else if (!now && baseline_clean(root))
			good = 0;	/* not recorded: on a clean base the verdict says it */
		else if (!now || strcmp(now, "pass"))
			good = -1;
	}
	job_record_release(&step);
	return good;
}

static int bs_scan(struct db *db, const struct job_record *root, struct bs_state *s)
{
	sqlite3_stmt *st = db_stmt(db, sql_bs_steps);
	struct { sqlite3_int64 id; int k; char verdict[16]; } done[64];
	int rc, n = 0;

	memset(s, 0, sizeof(*s));
	s->bad = series_len(root);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, root->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *state = db_col_text(st, 2);

		s->steps++;
		if (strcmp(state, "done")) {
			s->pending |= !strcmp(state, "queued") || !strcmp(state, "running");
			continue;
		}
		if (n < 64) {
			done[n].id = sqlite3_column_int64(st, 0);
			done[n].k = sqlite3_column_int(st, 1);
			snprintf(done[n].verdict, sizeof(done[n].verdict), "%s", db_col_text(st, 3));
			n++;
		}
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return -1;
	/* judged after the scan: step_good reads other statements */
	for (int i = 0; i < n; i++) {
		int good = step_good(db, root, done[i].id, done[i].verdict);

		if (good > 0 && done[i].k > s->good)
			s->good = done[i].k;
		else if (good == 0 && done[i].k < s->bad)
			s->bad = done[i].k;
		else if (good < 0 && !s->stuck) {
			s->stuck = true;
			s->stuck_at = done[i].k;
		}
	}
	return 0;
}

/* Subject of the k-th patch (1-based) of an mbox series, if it has one. */
static void patch_subject(const char *mbox, int k, struct buf *out)
{
	const char *p = mbox;
	int n = 0;

	while ((p = strstr(p, "Subject: ")) != NULL) {
		if (p == mbox || p[-1] == '\n') {
			if (++n == k) {
				const char *nl = strchr(p, '\n');
				char *line = xstrndup(p + 9, nl ? (size_t)(nl - p - 9) : strlen(p + 9));

				triage_add_clean(out, line, 200);
				free(line);
				return;
			}
		}
		p += 9;
	}
}

static int post_result(struct db *db, const struct job_record *root, const struct bs_state *s)
{
	struct job_record series = JOB_RECORD_INIT;
	struct buf text = BUF_INIT, marker = BUF_INIT, subject = BUF_INIT, tests = BUF_INIT;
	int ret;

	buf_addf(&marker, "bugbridge-bisect: job %lld", (long long)root->id);
	if (s->stuck)
		buf_addf(&text, "bugbridge bisection stopped: the run of patches 1-%d gave no"
			 " verdict (see the job pages)\n\n", s->stuck_at);
	else
		buf_addf(&text, "bugbridge bisect: patch %d/%d introduces the failure\n\n",
			 s->bad, series_len(root));
	if (root->candidate_id) {
		buf_addstr(&text, "Series:   ");
		triage_add_clean(&text, root->cand.name, 200);
		buf_addf(&text, "\nsha256:   %s\n", root->cand.sha256);
		/* the patch text only now, for the bad patch's subject */
		if (job_record_load(db, root->id, JOB_LOAD_CONTENT, &series) > 0)
			patch_subject(series.cand.content, s->bad, &subject);
	}
	if (!s->stuck && subject.len)
		buf_addf(&text, "Patch %d:  %s\n", s->bad, subject.ptr);
	if (broken_tests(root, &tests)) {
		/* test names are the suite's own, but bound them anyway */
		buf_addstr(&text, "Judged on: ");
		triage_add_clean(&text, tests.ptr, 300);
		buf_addstr(&text, " (the tests the series broke; failures the unpatched"
			   " kernel has already are not counted)\n");
	}
	buf_addf(&text, "Passes with patches 1-%d, fails with patches 1-%d;"
		 " %d run(s) beyond the two ends.\n", s->good, s->bad, s->steps);
	buf_addstr(&text, "\nJob:      ");
	triage_job_url(root->id, &text);
	buf_addf(&text, "\n\n%s\n", marker.ptr);
	ret = outbox_add(db, "comment", root->bug_id, root->id, marker.ptr, text.ptr);
	if (!ret && s->stuck)
		log_info("bisect: job %lld: stopped at patches 1-%d", (long long)root->id,
			 s->stuck_at);
	else if (!ret)
		log_info("bisect: job %lld: patch %d/%d introduces the failure (%d runs)",
			 (long long)root->id, s->bad, series_len(root), s->steps);
	job_record_release(&series);
	buf_release(&text);
	buf_release(&marker);
	buf_release(&subject);
	buf_release(&tests);
	return ret;
}

static int advance(struct db *db, const struct job_record *root)
{
	struct bs_state s;
	struct job_spec spec = { 0 };
	int next;

	if (bs_scan(db, root, &s))
		return error("bisect: cannot read steps of job %lld", (long long)root->id);
	if (s.pending)
		return 0;
	next = s.stuck ? 0 : bisect_next(s.good, s.bad);
	if (!next)
		return post_result(db, root, &s);
	spec.bug_id = root->bug_id;
	spec.candidate_id = root->candidate_id;
	spec.parent_id = root->id;
	spec.kind = "bisect-step";
	spec.patch_count = next;
	spec.base = root->base;	/* the steps search the series on the root's kernel */
	spec.base_reason = "a bisection step is built on its root job's base";
	log_info("bisect: job %lld: good %d, bad %d, testing patches 1-%d",
		 (long long)root->id, s.good, s.bad, next);
	return job_enqueue(db, &spec, NULL);
}

/* A requested bisection ("bugbridge: bisect N") that has nothing to search. */
static int nothing_to_bisect(struct db *db, const struct job_record *j)
{
	struct buf text = BUF_INIT, marker = BUF_INIT;
	const char *why;
	int ret;

	if (series_len(j) <= 1)
		why = "it is a single patch";
	else if (!strcmp(job_str(j->verdict), "pass"))
		why = "the whole series passes";
	else if (!baseline_clean(j))
		why = "no test that passes on the unpatched baseline fails with the series";
	else
		why = "the series did not get as far as running the suite";
	buf_addf(&marker, "bugbridge-bisect: job %lld", (long long)j->id);
	buf_addf(&text, "bugbridge: nothing to bisect: %s (verdict %s).\n\nJob:      ", why,
		 j->verdict && *j->verdict ? j->verdict : "none");
	triage_job_url(j->id, &text);
	buf_addf(&text, "\n\n%s\n", marker.ptr);
	ret = outbox_add(db, "comment", j->bug_id, j->id, marker.ptr, text.ptr);
	buf_release(&text);
	buf_release(&marker);
	return ret;
}

int bisect_job_done(struct db *db, const struct job_record *j)
{
	struct job_record root = JOB_RECORD_INIT;
	int ret = -1;

	if (starts_bisection(j)) {
		ret = advance(db, j);
	} else if (!strcmp(j->kind, "bisect-step") && j->parent_id) {
		if (job_record_load(db, j->parent_id, BISECT_LOAD, &root) <= 0) {
			error("bisect: no job %lld", (long long)j->parent_id);
			goto out;
		}
		ret = starts_bisection(&root) ? advance(db, &root) : 0;
	} else if (!strcmp(j->kind, "bisect") && !fault_no_result(j->fault)) {
		ret = nothing_to_bisect(db, j);
	} else {
		ret = 0;
	}
out:
	job_record_release(&root);
	return ret;
}
