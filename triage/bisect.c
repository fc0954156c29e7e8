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
 */
#include "triage.h"
#include "xalloc.h"
#include "job_queue.h"
#include "job_record.h"
#include "log.h"
#include "outbox.h"

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

/*
 * The unpatched end is good only if the baseline failed nothing: a step
 * runs without a baseline, so a failure the base already has would make
 * every prefix look bad.
 */
static bool baseline_clean(const struct job_record *j)
{
	return !job_record_failed(j, "baseline");
}

/* Does this finished job start a bisection (both ends known, good and bad)? */
static bool starts_bisection(const struct job_record *j)
{
	int n = series_len(j);

	return (!strcmp(j->kind, "test") || !strcmp(j->kind, "bisect")) &&
	       n > 1 && (j->patch_count == 0 || j->patch_count >= n) &&
	       !strncmp(job_str(j->change), "PASS->", 6) && is_bad(job_str(j->verdict)) &&
	       baseline_clean(j);
}

struct bs_state {
	int good, bad, steps;
	bool pending, stuck;		/* a step queued/running; a step that says nothing */
	int stuck_at;
};

static int bs_scan(struct db *db, const struct job_record *root, struct bs_state *s)
{
	sqlite3_stmt *st = db_stmt(db, sql_bs_steps);
	int rc;

	memset(s, 0, sizeof(*s));
	s->bad = series_len(root);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, root->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int k = sqlite3_column_int(st, 1);
		const char *state = db_col_text(st, 2), *verdict = db_col_text(st, 3);

		s->steps++;
		if (strcmp(state, "done")) {
			s->pending |= !strcmp(state, "queued") || !strcmp(state, "running");
			continue;
		}
		if (!strcmp(verdict, "pass") && k > s->good)
			s->good = k;
		else if (is_bad(verdict) && k < s->bad)
			s->bad = k;
		else if (!strcmp(verdict, "pass") || is_bad(verdict))
			continue;
		else if (!s->stuck) {
			s->stuck = true;
			s->stuck_at = k;
		}
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
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
	struct buf text = BUF_INIT, marker = BUF_INIT, subject = BUF_INIT;
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
		why = "the unpatched baseline fails already, so no prefix can be told good";
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
	} else if (!strcmp(j->kind, "bisect") && strcmp(job_str(j->verdict), "infra-error")) {
		ret = nothing_to_bisect(db, j);
	} else {
		ret = 0;
	}
out:
	job_record_release(&root);
	return ret;
}
