/*
 * verdict: flake counting and what changed against the baseline.  Pure.
 *
 * A failing test is run again (flake_retries times).  Its status is then
 * "fail" when every run failed, "flaky" when some passed, "pass" when none
 * failed.  A flaky test never supports a claim: its change is "FLAKY", and
 * the overall change is computed from the other tests only.
 *
 * Changes are written in ASCII: "FAIL->PASS" (the patch fixes it),
 * "PASS->FAIL" (it regresses), "FAIL->FAIL", "PASS->PASS"; per test also
 * "FLAKY", "NEW" (no baseline result) and "SKIP".  Overall, a regression
 * outranks a fix: one PASS->FAIL makes the job's change PASS->FAIL.
 */
#include "verdict.h"
#include "ktap.h"
#include "buf.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

void vtests_free(struct vtest *t, int n)
{
	for (int i = 0; t && i < n; i++) {
		free(t[i].name);
		free(t[i].status);
		free(t[i].diag);
	}
	free(t);
}

static void set_status(struct vtest *t)
{
	const char *s;

	if (!strcmp(t->status, "skip"))
		return;
	if (!t->failures)
		s = "pass";
	else if (t->failures == t->runs)
		s = "fail";
	else
		s = "flaky";
	free(t->status);
	t->status = xstrdup(s);
}

void vtest_from_ktap(const struct ktap_test *k, struct vtest *out)
{
	struct buf d = BUF_INIT;

	memset(out, 0, sizeof(*out));
	out->name = xstrdup(k->name);
	out->status = xstrdup(ktap_status_name(k->status));
	out->runs = 1;
	out->failures = k->status == KTAP_FAIL;
	if (k->reason && *k->reason)
		buf_addstr(&d, k->reason);
	if (k->diag && *k->diag) {
		if (d.len)
			buf_addch(&d, '\n');
		buf_addstr(&d, k->diag);
	}
	out->diag = buf_detach(&d, NULL);
}

void vtest_add_rerun(struct vtest *t, bool failed, const char *diag)
{
	t->runs++;
	if (failed)
		t->failures++;
	if (diag && *diag && failed && !*t->diag) {
		free(t->diag);
		t->diag = xstrdup(diag);
	}
	set_status(t);
}

/*
 * "# rerun NAME K/N: ok" and "# rerun NAME K/N: not ok # reason" lines of a
 * full-suite boot (bbsuite.rerun=N, the guest's rerun_failed): re-runs of
 * failing tests in the same boot, counted like fresh-boot ones.  "# rerun
 * NAME: fresh boot (why)" lines are left to boot.c's fresh boots.
 */
void vtests_add_guest_reruns(struct vtest *tests, int ntests, const char *console)
{
	const char *p = console;

	while ((p = strstr(p, "# rerun "))) {
		const char *name = p + 8, *sp = strchr(name, ' '), *nl = strchr(name, '\n');
		const char *colon = sp ? strchr(sp, ':') : NULL;
		struct buf reason = BUF_INIT;

		p = name;
		if (!sp || !colon || (nl && colon > nl) || !strchr("0123456789", sp[1]))
			continue;
		for (int i = 0; i < ntests; i++) {
			struct vtest *t = &tests[i];
			bool failed = !strncmp(colon, ": not ok", 8);
			const char *hash = strstr(colon, " # ");
			if (strlen(t->name) != (size_t)(sp - name) || strncmp(t->name, name, sp - name))
				continue;
			if (failed && hash && (!nl || hash < nl))
				buf_add(&reason, hash + 3, nl ? (size_t)(nl - hash - 3) : strlen(hash + 3));
			buf_trim(&reason);
			vtest_add_rerun(t, failed, reason.ptr);
		}
		buf_release(&reason);
	}
}

void vtest_summary(const struct vtest *t, struct buf *out)
{
	if (!strcmp(t->status, "skip"))
		buf_addstr(out, "skipped");
	else if (!t->failures)
		buf_addf(out, "passed %d/%d", t->runs, t->runs);
	else if (t->failures == t->runs)
		buf_addf(out, "failed %d/%d", t->failures, t->runs);
	else
		buf_addf(out, "failed %d/%d: flaky", t->failures, t->runs);
}

static const struct vtest *find(const struct vtest *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static bool failed(const char *status)
{
	return !strcmp(status, "fail");
}

const char *verdict_compare(struct vtest *patched, int np, const struct vtest *base, int nb,
			    const char *patched_verdict, const char *base_verdict)
{
	bool fix = false, regress = false, still_fails = false;
	bool base_died = nb == 0 && strcmp(base_verdict, "pass") && strcmp(base_verdict, "fail");
	bool patched_died = np == 0 && strcmp(patched_verdict, "pass") &&
			    strcmp(patched_verdict, "fail");

	for (int i = 0; i < np; i++) {
		struct vtest *t = &patched[i];
		const struct vtest *b = find(base, nb, t->name);
		if (!strcmp(t->status, "flaky") || (b && !strcmp(b->status, "flaky"))) {
			t->change = "FLAKY";
		} else if (!strcmp(t->status, "skip") || (b && !strcmp(b->status, "skip"))) {
			t->change = "SKIP";
		} else if (!b && !base_died) {
			t->change = "NEW";
		} else {
			bool was = b ? failed(b->status) : true;	/* base died: all failed */
			bool is = failed(t->status);
			t->change = was ? (is ? "FAIL->FAIL" : "FAIL->PASS")
					: (is ? "PASS->FAIL" : "PASS->PASS");
			fix |= was && !is;
			regress |= !was && is;
			still_fails |= was && is;
		}
	}
	if (patched_died) {
		/* No results at all: every baseline pass is now a failure. */
		for (int i = 0; i < nb; i++) {
			if (!strcmp(base[i].status, "pass"))
				regress = true;
			else if (failed(base[i].status))
				still_fails = true;
		}
		if (!nb)
			still_fails = true;
	}
	if (regress)
		return "PASS->FAIL";
	if (fix)
		return "FAIL->PASS";
	if (still_fails)
		return "FAIL->FAIL";
	return "PASS->PASS";
}
