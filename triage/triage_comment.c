/*
 * triage_comment: the result comment of a finished job, written for a
 * maintainer who gives it ten seconds, in syzbot's manner: the verdict
 * line first (what changed against the unpatched baseline), then a few
 * facts (the patch, the kernel, the time and accelerator, the reach of the
 * patch's lines), the tests that changed or fail and a count of the rest
 * (comment_tests.c), the failure signatures, the link to the job page,
 * which has everything else, and last the marker line the poster and the
 * poller recognise ("bugbridge-result: job <id>").  The sr fix's FAIL->PASS
 * is some 19 lines; a re-run that agrees with the fix's first run, 9.
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

/* The variant a job's own verdict is about: patched, or the only one it ran. */
static const char *own_variant(const struct job_record *r)
{
	for (int i = 0; i < r->ntests; i++)
		if (!strcmp(r->tests[i].variant, "patched"))
			return "patched";
	return "baseline";
}

/* Test names whose change is `change` (or, without one, status), comma-separated. */
static int tests_with_change(const struct job_record *r, const char *change, const char *status,
			     struct buf *out)
{
	const char *variant = own_variant(r);
	int n = 0;

	for (int i = 0; i < r->ntests; i++) {
		const struct job_record_test *t = &r->tests[i];

		if (strcmp(t->variant, variant) ||
		    (change ? strcmp(job_str(t->change), change) : strcmp(t->status, status)))
			continue;
		if (n++ < 8) {
			if (n > 1)
				buf_addstr(out, ", ");
			triage_add_clean(out, t->name, 80);
		}
	}
	if (n > 8)
		buf_addf(out, " and %d more", n - 8);
	return n;
}

static const char *patch_word(const struct job_record *r)
{
	return strcmp(r->cand.kind, "patch") ? "series" : "patch";
}

static void headline(const struct job_record *r, struct buf *out)
{
	struct buf names = BUF_INIT;
	const char *v = job_str(r->verdict), *change = job_str(r->change), *base = r->base;

	if (job_record_not_reached(r)) {
		/* before any FAIL->PASS: a pass that never ran the patch proves nothing */
		buf_addf(out, "PASS (not reached): the suite never executed the lines this %s"
			 " changes, so the pass says nothing about it", patch_word(r));
	} else if (job_record_untested(r)) {
		/* no FAIL->PASS, no pass: the code it changes was not built */
		buf_addf(out, "UNTESTED: this %s changes code the test kernel cannot build, so no"
			 " test judged it", patch_word(r));
	} else if (!strcmp(v, "apply-failed")) {
		buf_addf(out, "APPLY FAILED: this %s does not apply to %s", patch_word(r), base);
	} else if (!strcmp(v, "build-failed")) {
		buf_addf(out, "BUILD FAILED: the kernel does not build with this %s", patch_word(r));
	} else if (!strcmp(v, "boot-timeout") || !strcmp(v, "panic")) {
		upper(out, v);
		buf_addf(out, ": the %s kernel did not finish the suite",
			 r->candidate_id ? "patched" : "unpatched");
	} else if (!strcmp(change, "FAIL->PASS")) {
		tests_with_change(r, "FAIL->PASS", NULL, &names);
		buf_addf(out, "FAIL->PASS: this %s fixes %s", patch_word(r),
			 names.len ? names.ptr : "the baseline's failure");
	} else if (!strcmp(change, "PASS->FAIL")) {
		tests_with_change(r, "PASS->FAIL", NULL, &names);
		buf_addf(out, "PASS->FAIL: this %s breaks %s", patch_word(r),
			 names.len ? names.ptr : "the suite");
		buf_reset(&names);
		/* a regression outranks a fix, but the fix is news too */
		if (tests_with_change(r, "FAIL->PASS", NULL, &names))
			buf_addf(out, " (it fixes %s)", names.ptr);
	} else if (!strcmp(change, "FAIL->FAIL")) {
		tests_with_change(r, NULL, "fail", &names);
		buf_addf(out, "FAIL->FAIL: still failing with this %s%s%s", patch_word(r),
			 names.len ? ": " : "", names.ptr);
	} else if (!strcmp(change, "PASS->PASS")) {
		buf_addf(out, "PASS->PASS: no change against %s", base);
	} else if (!r->candidate_id) {
		tests_with_change(r, NULL, "fail", &names);
		if (!strcmp(v, "pass"))
			buf_addf(out, "PASS: the unpatched %s passes the suite", base);
		else
			buf_addf(out, "FAIL: the unpatched %s fails %s", base,
				 names.len ? names.ptr : "the suite");
	} else if (!strcmp(r->kind, "retest")) {
		tests_with_change(r, NULL, "fail", &names);
		if (!strcmp(v, "pass"))
			buf_addf(out, "PASS again on a re-run: the fix holds");
		else
			buf_addf(out, "%s on a re-run: the fix does not hold%s%s",
				 !strcmp(v, "fail") ? "FAIL" : v, names.len ? ", failing " : "",
				 names.ptr);
	} else {
		tests_with_change(r, NULL, "fail", &names);
		upper(out, v);
		if (names.len)
			buf_addf(out, " with this %s: %s fails", patch_word(r), names.ptr);
		else
			buf_addf(out, " with this %s", patch_word(r));
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

/*
 * "Run: TCG, 5m02s (re-run of job 5)", each part only when it applies: a
 * patch that does not apply never boots.
 */
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
	if (rerun) {
		buf_addstr(out, accel[0] || timed ? " (re-run" : "re-run");
		if (r->parent_id)
			buf_addf(out, " of job %lld", (long long)r->parent_id);
		buf_addstr(out, accel[0] || timed ? ")" : "");
	}
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

static void patch_lines(const struct job_record *r, bool rerun, struct buf *out)
{
	buf_addf(out, "%-10s", strcmp(r->cand.kind, "patch") ? "Series:" : "Patch:");
	triage_add_clean(out, r->cand.name[0] ? r->cand.name : "(unnamed)", 200);
	if (r->cand.patch_count > 1) {
		if (r->patch_count > 0 && r->patch_count < r->cand.patch_count)
			buf_addf(out, " (patches 1-%d of %d)", r->patch_count, r->cand.patch_count);
		else
			buf_addf(out, " (%d patches)", r->cand.patch_count);
	}
	/* a re-run's patch is its first run's: that comment has the sha256 */
	if (rerun && r->parent_id)
		buf_addf(out, ", as in job %lld\n", (long long)r->parent_id);
	else
		buf_addf(out, "\n%-10s%s\n", "sha256:", r->cand.sha256);
}

static void facts(const struct job_record *r, struct buf *out)
{
	const char *verdict = job_str(r->verdict), *version = job_str(r->kernel_version);
	const char *detail = job_str(r->verdict_detail);

	if (r->candidate_id)
		patch_lines(r, !strcmp(r->kind, "retest"), out);
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
	if (detail[0] && job_record_untested(r))
		triage_add_untested(out, detail);
	else if (detail[0] && !strcmp(verdict, "apply-failed"))
		triage_add_rejected(out, detail);
	else if (detail[0])
		/* a suite that ran is said by the tests below; its detail adds only our notes */
		triage_add_detail(out, detail, !strcmp(verdict, "pass") || !strcmp(verdict, "fail"));
}

/* The fix's first run, which a re-run is compared with; 1 loaded, 0 none, -1 error. */
static int load_first_run(struct db *db, const struct job_record *r, struct job_record *parent)
{
	if (!db || strcmp(r->kind, "retest") || !r->parent_id)
		return 0;
	return job_record_load(db, r->parent_id, JOB_LOAD_TESTS, parent);
}

int triage_comment(struct db *db, const struct job_record *rec, struct buf *out)
{
	struct job_record parent = JOB_RECORD_INIT;
	struct buf body = BUF_INIT;
	int first;

	buf_reset(out);
	if (fault_no_result(rec->fault) || !job_str(rec->verdict)[0] ||
	    !strcmp(rec->kind, "bisect-step"))
		return 1;
	first = load_first_run(db, rec, &parent);
	if (first < 0)
		return -1;
	buf_init(&body, TRIAGE_COMMENT_MAX - TAIL_ROOM);
	buf_addstr(&body, "bugbridge ");
	headline(rec, &body);
	buf_addstr(&body, "\n\n");
	facts(rec, &body);
	triage_add_tests(&body, rec, first > 0 ? &parent : NULL);
	/* only a job that ran both kernels has signatures of two kinds */
	triage_add_signatures(&body, rec, job_record_ran(rec, "baseline") &&
			      job_record_ran(rec, "patched"));
	buf_addstr(out, body.ptr);
	if (body.overflow)
		buf_addstr(out, "\n(cut short: see the job page for everything)\n");
	buf_addstr(out, "\nJob:      ");
	triage_job_url(rec->id, out);
	buf_addf(out, "\n\nbugbridge-result: job %lld\n", (long long)rec->id);
	job_record_release(&parent);
	buf_release(&body);
	return 0;
}
