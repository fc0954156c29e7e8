/*
 * comment_tests: what a result comment says of the test cases and the
 * failure signatures.
 *
 * The suite has some 70 tests, and a fix changes one of them: a row per
 * test buries the one that matters under 69 rows of "PASS PASS".  So the
 * comment shows only the tests a maintainer must see, as syzbot shows only
 * the crash: those whose verdict differs between the two runs compared,
 * and those that fail; the rest is one line that counts them ("69 more
 * tests pass on both").  The job page has every row.
 *
 * The two runs compared are the unpatched baseline and the patched kernel
 * when the job ran both; for a re-run of a fix, the fix's first run and the
 * re-run, so that a re-run that agrees says so in one line ("All 70 tests
 * pass, as in job 5"); otherwise there is one run and one status column.
 *
 * The table is a text_table (lib/text_table.h): status columns first and
 * the test name last, each column as wide as its widest cell, so that no
 * name, however long, moves a column.  Test names and signature titles
 * come from the guest: cleaned and bounded like every untrusted string.
 */
#include "triage_comment.h"
#include "job_record.h"
#include "text_table.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows shown at most; the others are counted. */
#define MAX_ROWS 10
/* Signature lines shown at most. */
#define MAX_SIGS 4

enum cm_mode {
	CM_ONE,		/* one run: the patched kernel, or the unpatched one without a patch */
	CM_BASELINE,	/* baseline and patched */
	CM_RERUN,	/* the first run of a fix and its re-run */
};

/* One test case in the two runs compared (before is NULL in CM_ONE). */
struct cm_case {
	const char *name;
	const struct job_record_test *before, *now;
	int rank;	/* shown: 0 a change, 1 a failure, 2 ran in one run only; -1 not shown */
};

struct cm_tests {
	enum cm_mode mode;
	struct cm_case *cases;
	int n;
	size_t alloc;
};

static const char *status_of(const struct job_record_test *t)
{
	return t ? t->status : "";
}

static bool bad(const char *status)
{
	return !strcmp(status, "fail") || !strcmp(status, "flaky");
}

static struct cm_case *case_of(struct cm_tests *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->cases[i].name, name))
			return &c->cases[i];
	XGROW(c->cases, (size_t)c->n + 1, c->alloc);
	c->cases[c->n] = (struct cm_case){ .name = name };
	return &c->cases[c->n++];
}

/* Put the tests of variant of r into the before or now side of the cases. */
static void add_side(struct cm_tests *c, const struct job_record *r, const char *variant,
		     bool now)
{
	for (int i = 0; i < r->ntests; i++) {
		const struct job_record_test *t = &r->tests[i];
		struct cm_case *k;

		if (strcmp(t->variant, variant))
			continue;
		k = case_of(c, t->name);
		if (now)
			k->now = t;
		else
			k->before = t;
	}
}

static bool has_variant(const struct job_record *r, const char *variant)
{
	for (int i = 0; r && i < r->ntests; i++)
		if (!strcmp(r->tests[i].variant, variant))
			return true;
	return false;
}

static int rank_of(enum cm_mode mode, const struct cm_case *k)
{
	const char *b = status_of(k->before), *a = status_of(k->now);

	if (mode != CM_ONE && *a && *b && strcmp(a, b))
		return 0;
	if (bad(a) || bad(b))
		return 1;
	if (mode != CM_ONE && strcmp(a, b))
		return 2;
	return -1;
}

static int cmp_case(const void *x, const void *y)
{
	const struct cm_case *a = x, *b = y;
	int ra = a->rank < 0 ? 3 : a->rank, rb = b->rank < 0 ? 3 : b->rank;

	return ra != rb ? ra - rb : strcmp(a->name, b->name);
}

static void cm_load(struct cm_tests *c, const struct job_record *r, const struct job_record *parent)
{
	memset(c, 0, sizeof(*c));
	if (has_variant(r, "baseline") && has_variant(r, "patched")) {
		c->mode = CM_BASELINE;
		add_side(c, r, "baseline", false);
		add_side(c, r, "patched", true);
	} else if (parent && has_variant(parent, "patched") && has_variant(r, "patched")) {
		c->mode = CM_RERUN;
		add_side(c, parent, "patched", false);
		add_side(c, r, "patched", true);
	} else {
		/* a job without a patch may have its results under either name */
		c->mode = CM_ONE;
		add_side(c, r, has_variant(r, "patched") ? "patched" : "baseline", true);
	}
	for (int i = 0; i < c->n; i++)
		c->cases[i].rank = rank_of(c->mode, &c->cases[i]);
	if (c->n)
		qsort(c->cases, c->n, sizeof(*c->cases), cmp_case);
}

static const char *shown(const char *status)
{
	if (!strcmp(status, "pass"))
		return "PASS";
	if (!strcmp(status, "fail"))
		return "FAIL";
	if (!strcmp(status, "skip"))
		return "SKIP";
	if (!strcmp(status, "flaky"))
		return "FLAKY";
	return *status ? "?" : "-";
}

/* The test's name, and for a flaky one how often it failed. */
static void name_cell(const struct cm_case *k, struct buf *out)
{
	buf_addstr(out, k->name);
	if (k->now && !strcmp(k->now->status, "flaky"))
		buf_addf(out, " (%d of %d runs failed)", k->now->failures, k->now->runs);
}

static void add_row(struct text_table *t, const struct cm_tests *c, const struct cm_case *k)
{
	struct buf name = BUF_INIT;
	const char *cells[3];
	int n = 0;

	name_cell(k, &name);
	if (c->mode != CM_ONE)
		cells[n++] = shown(status_of(k->before));
	cells[n++] = shown(status_of(k->now));
	cells[n++] = name.ptr;
	text_table_add(t, cells);
	buf_release(&name);
}

static void add_header(struct text_table *t, const struct cm_tests *c,
		       const struct job_record *parent)
{
	char first[40];
	const char *cells[3];
	int n = 0;

	if (c->mode == CM_BASELINE) {
		cells[n++] = "Baseline";
		cells[n++] = "Patched";
	} else if (c->mode == CM_RERUN) {
		snprintf(first, sizeof(first), "Job %lld", (long long)parent->id);
		cells[n++] = first;
		cells[n++] = "Re-run";
	} else {
		cells[n++] = "Result";
	}
	cells[n++] = "Test";
	text_table_add(t, cells);
}

/* " pass", " 3 pass, 1 skipped" ...: the statuses of the cases not shown. */
static void rest_statuses(const struct cm_tests *c, int *npass, struct buf *out)
{
	int pass = 0, skip = 0, other = 0;

	for (int i = 0; i < c->n; i++) {
		const char *s = status_of(c->cases[i].now);

		if (c->cases[i].rank >= 0)
			continue;
		pass += !strcmp(s, "pass");
		skip += !strcmp(s, "skip");
		other += strcmp(s, "pass") && strcmp(s, "skip");
	}
	*npass = pass;
	if (!skip && !other)
		return;
	buf_addf(out, "%d pass", pass);
	if (skip)
		buf_addf(out, ", %d skipped", skip);
	if (other)
		buf_addf(out, ", %d other", other);
}

/* "69 more tests pass on both." / "All 70 tests pass, as in job 5." */
static void rest_line(const struct cm_tests *c, const struct job_record *parent, int rest,
		      int total, struct buf *out)
{
	struct buf mix = BUF_INIT;
	int pass;
	bool all = rest == total;

	rest_statuses(c, &pass, &mix);
	if (all && rest == 1)
		buf_addstr(out, "The one test");
	else if (all)
		buf_addf(out, "All %d tests", rest);
	else
		buf_addf(out, "  %d more test%s", rest, rest == 1 ? "" : "s");
	if (!mix.len)
		buf_addstr(out, rest == 1 ? " passes" : " pass");
	else
		buf_addstr(out, c->mode == CM_ONE ? ":" : ",");
	if (c->mode == CM_BASELINE)
		buf_addstr(out, mix.len ? " the same on both: " : " on both");
	else if (c->mode == CM_RERUN)
		buf_addf(out, "%sas in job %lld%s", mix.len ? " " : ", ", (long long)parent->id,
			 mix.len ? ": " : "");
	else if (mix.len)
		buf_addch(out, ' ');
	buf_addf(out, "%s.\n", mix.ptr);
	buf_release(&mix);
}

void triage_add_tests(struct buf *out, const struct job_record *job,
		      const struct job_record *parent)
{
	struct cm_tests c;
	struct text_table t;
	int shown_rows = 0, more = 0, rest = 0;

	cm_load(&c, job, parent);
	if (!c.n)
		goto out;
	text_table_init(&t, c.mode == CM_ONE ? 2 : 3);
	add_header(&t, &c, parent);
	for (int i = 0; i < c.n; i++) {
		if (c.cases[i].rank < 0)
			rest++;
		else if (shown_rows++ < MAX_ROWS)
			add_row(&t, &c, &c.cases[i]);
		else
			more++;
	}
	/* "All 70 tests pass ..." alone reads as one more fact, a table stands apart */
	if (t.nrows > 1) {
		buf_addch(out, '\n');
		text_table_render(&t, "  ", out);
	}
	if (more)
		buf_addf(out, "  %d more that differ or fail (the job page lists every test).\n",
			 more);
	if (rest)
		rest_line(&c, parent, rest, c.n, out);
	text_table_release(&t);
out:
	free(c.cases);
}

void triage_add_signatures(struct buf *out, const struct job_record *job, bool label)
{
	for (int i = 0; i < job->nsigs; i++) {
		const struct job_record_sig *s = &job->sigs[i];
		size_t top = strcspn(s->frames, "\n");

		if (i == MAX_SIGS) {
			buf_addf(out, "  %d more on the job page\n", job->nsigs - MAX_SIGS);
			break;
		}
		if (!i)
			buf_addstr(out, "\nFailure signatures:\n");
		buf_addstr(out, "  ");
		if (label)
			buf_addf(out, "[%s] ", s->variant);
		triage_add_clean(out, s->kind, 20);
		buf_addstr(out, ": ");
		triage_add_clean(out, s->title, 120);
		if (top) {
			char *frame = xstrndup(s->frames, top);

			/* the top frame says where, as syzbot's "... in sr_done", once */
			if (!strstr(s->title, frame)) {
				buf_addstr(out, " in ");
				triage_add_clean(out, frame, 60);
			}
			free(frame);
		}
		buf_addch(out, '\n');
	}
}
