/*
 * verdict (pure): a test's runs folded (flake counting), and what changed
 * between the baseline's results and the patched variant's.
 */
#ifndef BB_VERDICT_H
#define BB_VERDICT_H

#include <stdbool.h>
#include "buf.h"
#include "ktap.h"

struct vtest {
	char *name;
	char *status;			/* pass, fail, skip, flaky */
	int runs, failures;
	char *diag;
	const char *change;		/* set by verdict_compare */
};
/* Fold a test's runs: first the full-suite result, then reruns. */
void vtest_from_ktap(const struct ktap_test *t, struct vtest *out);
void vtest_add_rerun(struct vtest *t, bool failed, const char *diag);
/* The guest's in-boot re-runs ("# rerun NAME K/N: ok|not ok # why") of a console. */
void vtests_add_guest_reruns(struct vtest *tests, int ntests, const char *console);
void vtests_free(struct vtest *t, int n);
/* "failed 3/3", "failed 1/3: flaky", "passed" */
void vtest_summary(const struct vtest *t, struct buf *out);
/*
 * Per-test and overall change between baseline and patched results
 * ("FAIL->PASS", "PASS->FAIL", "FAIL->FAIL", "PASS->PASS", per test also
 * "FLAKY", "NEW", "GONE").  Returns the overall change (static string).
 */
const char *verdict_compare(struct vtest *patched, int np, const struct vtest *base, int nb,
			    const char *patched_verdict, const char *base_verdict);

#endif
