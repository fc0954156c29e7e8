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
#include "triage_comment.h"
#include "xalloc.h"
#include "config.h"
#include "job_record.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Room kept for the link and marker when the body is cut short. */
#define TAIL_ROOM 512

/* One test case across the variants: the comment's table is by name. */
struct cm_case {
	const char *name;
	const struct job_record_test *base, *patched;
};

struct cm_job {
	const struct job_record *rec;
	const char *verdict, *change;	/* never NULL */
	struct cm_case *cases;		/* sorted by name */
	int ncases;
};

static int cmp_case(const void *a, const void *b)
{
	return strcmp(((const struct cm_case *)a)->name, ((const struct cm_case *)b)->name);
}

static struct cm_case *case_of(struct cm_job *j, const char *name, size_t *alloc)
{
	for (int i = 0; i < j->ncases; i++)
		if (!strcmp(j->cases[i].name, name))
			return &j->cases[i];
	XGROW(j->cases, j->ncases + 1, *alloc);
	j->cases[j->ncases] = (struct cm_case){ name, NULL, NULL };
	return &j->cases[j->ncases++];
}

static void cm_job_init(struct cm_job *j, const struct job_record *rec)
{
	size_t alloc = 0;

	memset(j, 0, sizeof(*j));
	j->rec = rec;
	j->verdict = job_str(rec->verdict);
	j->change = job_str(rec->change);
	for (int i = 0; i < rec->ntests; i++) {
		const struct job_record_test *t = &rec->tests[i];
		struct cm_case *c = case_of(j, t->name, &alloc);

		if (!strcmp(t->variant, "baseline"))
			c->base = t;
		else if (!strcmp(t->variant, "patched"))
			c->patched = t;
	}
	if (j->ncases)
		qsort(j->cases, j->ncases, sizeof(*j->cases), cmp_case);
}

static const char *status_of(const struct job_record_test *t)
{
	return t ? t->status : "";
}

void triage_add_clean(struct buf *out, const char *s, size_t max)
{
	size_t n = 0;

	for (; s && *s && n < max; s++, n++)
		buf_addch(out, iscntrl((unsigned char)*s) ? ' ' : *s);
	if (s && *s)
		buf_addstr(out, "...");
}

void triage_add_frames(struct buf *out, const char *frames)
{
	for (int n = 0; *frames && n < 5; n++) {
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

/* The patched result of a case; a baseline-only job's results may all be the baseline's. */
static const char *mine(const struct cm_case *c)
{
	return c->patched ? c->patched->status : status_of(c->base);
}

/* Test names whose per-test change is `change` (or, without one, status), comma-separated. */
static int tests_with_change(const struct cm_job *j, const char *change, const char *status,
			     struct buf *out)
{
	int n = 0;

	for (int i = 0; i < j->ncases; i++) {
		const struct cm_case *c = &j->cases[i];
		const char *ch = c->patched ? job_str(c->patched->change) : "";

		if (change ? strcmp(ch, change) : strcmp(mine(c), status))
			continue;
		if (n++ < 8) {
			if (n > 1)
				buf_addstr(out, ", ");
			triage_add_clean(out, c->name, 80);
		}
	}
	if (n > 8)
		buf_addf(out, " and %d more", n - 8);
	return n;
}

static const char *patch_word(const struct cm_job *j)
{
	return strcmp(j->rec->cand.kind, "patch") ? "series" : "patch";
}

static void headline(const struct cm_job *j, struct buf *out)
{
	struct buf names = BUF_INIT;
	const char *v = j->verdict, *base = j->rec->base;

	if (job_record_not_reached(j->rec)) {
		/* before any FAIL->PASS: a pass that never ran the patch proves nothing */
		buf_addf(out, "PASS (not reached): the suite never executed the lines this %s"
			 " changes, so the pass says nothing about it", patch_word(j));
	} else if (!strcmp(v, "apply-failed")) {
		buf_addf(out, "APPLY FAILED: this %s does not apply to %s", patch_word(j), base);
	} else if (!strcmp(v, "build-failed")) {
		buf_addf(out, "BUILD FAILED: the kernel does not build with this %s", patch_word(j));
	} else if (!strcmp(v, "boot-timeout") || !strcmp(v, "panic")) {
		upper(out, v);
		buf_addf(out, ": the %s kernel did not finish the suite",
			 j->rec->candidate_id ? "patched" : "unpatched");
	} else if (!strcmp(j->change, "FAIL->PASS")) {
		tests_with_change(j, "FAIL->PASS", NULL, &names);
		buf_addf(out, "FAIL->PASS: this %s fixes %s", patch_word(j),
			 names.len ? names.ptr : "the baseline's failure");
	} else if (!strcmp(j->change, "PASS->FAIL")) {
		tests_with_change(j, "PASS->FAIL", NULL, &names);
		buf_addf(out, "PASS->FAIL: this %s breaks %s", patch_word(j),
			 names.len ? names.ptr : "the suite");
		buf_reset(&names);
		/* a regression outranks a fix, but the fix is news too */
		if (tests_with_change(j, "FAIL->PASS", NULL, &names))
			buf_addf(out, " (it fixes %s)", names.ptr);
	} else if (!strcmp(j->change, "FAIL->FAIL")) {
		tests_with_change(j, NULL, "fail", &names);
		buf_addf(out, "FAIL->FAIL: still failing with this %s%s%s", patch_word(j),
			 names.len ? ": " : "", names.ptr);
	} else if (!strcmp(j->change, "PASS->PASS")) {
		buf_addf(out, "PASS->PASS: no change against %s", base);
	} else if (!j->rec->candidate_id) {
		tests_with_change(j, NULL, "fail", &names);
		if (!strcmp(v, "pass"))
			buf_addf(out, "PASS: the unpatched %s passes the suite", base);
		else
			buf_addf(out, "FAIL: the unpatched %s fails %s", base,
				 names.len ? names.ptr : "the suite");
	} else if (!strcmp(j->rec->kind, "retest")) {
		tests_with_change(j, NULL, "fail", &names);
		if (!strcmp(v, "pass"))
			buf_addf(out, "PASS again on a re-run: the fix holds");
		else
			buf_addf(out, "%s on a re-run: the fix does not hold%s%s",
				 !strcmp(v, "fail") ? "FAIL" : v, names.len ? ", failing " : "",
				 names.ptr);
	} else {
		tests_with_change(j, NULL, "fail", &names);
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

/* "Run: TCG, 5m02s (re-run)", each part only when it applies: a patch that does not apply never boots. */
static void run_line(const struct job_record *r, struct buf *out)
{
	const char *accel = job_str(r->accel);
	bool timed = r->started_at && r->finished_at > r->started_at;
	bool rerun = !strcmp(r->kind, "retest");

	if (!accel[0] && !timed && !rerun)
		return;
	buf_addf(out, "%-10s", "Run:");
	upper(out, accel);
	if (timed) {
		buf_addstr(out, accel[0] ? ", " : "");
		add_duration(out, r->finished_at - r->started_at);
	}
	if (rerun)
		buf_addstr(out, accel[0] || timed ? " (re-run)" : "re-run");
	buf_addstr(out, "\n");
}

/*
 * Where the suite booted in a LAVA lab: one line per suite boot of the last
 * attempt (the patched kernel, the baseline), with its LAVA job's URL;
 * re-runs of failing tests are counted, their URLs are on the job page.
 */
static void lava_lines(const struct job_record *r, struct buf *out)
{
	int last = 0, reruns = 0;

	for (int i = 0; i < r->nlava; i++)
		if (r->lava[i].attempt > last)
			last = r->lava[i].attempt;
	for (int i = 0; i < r->nlava; i++) {
		const struct job_record_lava *l = &r->lava[i];
		if (l->attempt != last || !l->url)
			continue;
		if (strchr(l->boot, '/')) {
			reruns++;
			continue;
		}
		buf_addf(out, "%-10s", "LAVA:");
		triage_add_clean(out, l->url, 200);
		buf_addf(out, " (%s", l->variant);
		if (l->device) {
			buf_addstr(out, " on ");
			triage_add_clean(out, l->device, 60);
		}
		buf_addstr(out, ")\n");
	}
	if (reruns)
		buf_addf(out, "%-10s%d more LAVA job%s re-ran failing tests (see the job page)\n",
			 "", reruns, reruns > 1 ? "s" : "");
}

static void facts(const struct cm_job *j, struct buf *out)
{
	const struct job_record *r = j->rec;
	const char *version = job_str(r->kernel_version);
	const char *detail = job_str(r->verdict_detail);

	if (r->candidate_id) {
		buf_addf(out, "%-10s", strcmp(r->cand.kind, "patch") ? "Series:" : "Patch:");
		triage_add_clean(out, r->cand.name[0] ? r->cand.name : "(unnamed)", 200);
		if (r->cand.patch_count > 1) {
			if (r->patch_count > 0 && r->patch_count < r->cand.patch_count)
				buf_addf(out, " (patches 1-%d of %d)", r->patch_count,
					 r->cand.patch_count);
			else
				buf_addf(out, " (%d patches)", r->cand.patch_count);
		}
		buf_addf(out, "\n%-10s%s\n", "sha256:", r->cand.sha256);
	}
	buf_addf(out, "%-10s%s", "Kernel:", r->base);
	if (version[0]) {
		buf_addstr(out, ", ");
		triage_add_clean(out, version, 100);
	}
	buf_addstr(out, "\n");
	run_line(r, out);
	lava_lines(r, out);
	if (r->reach) {
		buf_addf(out, "%-10s", "Reach:");
		triage_add_clean(out, r->reach, 300);
		buf_addstr(out, "\n");
	}
	if (detail[0] && !strcmp(j->verdict, "apply-failed")) {
		triage_add_rejected(out, detail);
	} else if (detail[0] && strcmp(j->verdict, "pass")) {
		triage_add_detail(out, detail);
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

static void table(const struct cm_job *j, struct buf *out)
{
	bool patch = j->rec->candidate_id != 0, both = patch && j->change[0];
	int npass = 0, nfail = 0, nskip = 0;

	for (int i = 0; i < j->ncases; i++) {
		const struct cm_case *c = &j->cases[i];
		const char *base = status_of(c->base), *patched = status_of(c->patched);
		const char *m = patch ? patched : mine(c);

		if (!i)
			buf_addf(out, "\n  %-30s %s\n", "Test case",
				 both ? "baseline  patched" : "result");
		npass += !strcmp(m, "pass");
		nfail += !strcmp(m, "fail");
		nskip += !strcmp(m, "skip");
		buf_addstr(out, "  ");
		add_cell(out, c->name, 30);
		if (both)
			buf_addf(out, " %-9s %s", shown(base), shown(patched));
		else
			buf_addf(out, " %s", shown(m));
		if (!strcmp(m, "flaky"))
			buf_addf(out, " (%d of %d runs failed)", c->patched ? c->patched->failures : 0,
				 c->patched ? c->patched->runs : 0);
		buf_addch(out, '\n');
	}
	if (j->ncases)
		buf_addf(out, "  %d passed, %d failed, %d skipped%s\n", npass, nfail, nskip,
			 patch ? " (patched)" : "");
}

static void signatures(const struct job_record *r, struct buf *out)
{
	for (int i = 0; i < r->nsigs; i++) {
		const struct job_record_sig *s = &r->sigs[i];

		if (!i)
			buf_addstr(out, "\nFailure signatures:\n");
		buf_addf(out, "  [%s] ", s->variant);
		triage_add_clean(out, s->kind, 20);
		buf_addstr(out, ": ");
		triage_add_clean(out, s->title, 200);
		buf_addf(out, " (%.12s)\n", s->hash);
		triage_add_frames(out, s->frames);
	}
}

int triage_comment(const struct job_record *rec, struct buf *out)
{
	struct cm_job j;
	struct buf body = BUF_INIT;

	buf_reset(out);
	if (fault_no_result(rec->fault) || !job_str(rec->verdict)[0] ||
	    !strcmp(rec->kind, "bisect-step"))
		return 1;
	cm_job_init(&j, rec);
	buf_init(&body, TRIAGE_COMMENT_MAX - TAIL_ROOM);
	buf_addstr(&body, "bugbridge ");
	headline(&j, &body);
	buf_addstr(&body, "\n\n");
	facts(&j, &body);
	table(&j, &body);
	signatures(rec, &body);
	buf_addstr(out, body.ptr);
	if (body.overflow)
		buf_addstr(out, "\n(cut short: see the job page for everything)\n");
	buf_addstr(out, "\nJob:      ");
	triage_job_url(rec->id, out);
	buf_addf(out, "\n\nbugbridge-result: job %lld\n", (long long)rec->id);
	free(j.cases);
	buf_release(&body);
	return 0;
}
