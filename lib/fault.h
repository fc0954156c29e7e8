/*
 * fault: whose fault an outcome is.  The runner says it with the verdict
 * (jobs.fault), the job queue retries by it, triage comments by it, and
 * KCIDB export maps it to ERROR or FAIL; nobody matches verdict strings to
 * decide who is to blame.
 *
 *   FAULT_NONE    the suite ran and judged (pass, fail), or a job without a
 *                 patch showed the base kernel's own behaviour: blame is for
 *                 the test results and the baseline comparison to say; or
 *                 nothing could judge the patch (untested: it changes code
 *                 the runner's kernel configuration cannot build), which is
 *                 no one's fault and no result either way
 *   FAULT_PATCH   the candidate's making: it does not apply, does not
 *                 build, or its kernel panics or hangs (apply-failed,
 *                 build-failed, panic, boot-timeout)
 *   FAULT_INFRA   the infrastructure failed us (a lost lease, a full disk,
 *                 QEMU or the LAVA lab, a tool that could not run): the
 *                 verdict is infra-error and the job is tried again, up to
 *                 [runner] max_attempts
 *   FAULT_OURS    bugbridge's own (the harness does not apply, the unpatched
 *                 base does not build, config options do not stick, the
 *                 scenario file is bad): also infra-error, never the
 *                 patch's, and not retried, since it would fail the same way
 */
#ifndef BB_FAULT_H
#define BB_FAULT_H

#include <stdbool.h>

enum fault { FAULT_NONE, FAULT_PATCH, FAULT_INFRA, FAULT_OURS };

/* "patch", "infra", "ours"; NULL for FAULT_NONE (the column's NULL). */
const char *fault_name(enum fault f);
/* The inverse; NULL, "" or an unknown word: FAULT_NONE. */
enum fault fault_parse(const char *name);
/*
 * What a verdict says when nothing more is known (rows older than the
 * fault column): infra-error is FAULT_INFRA, a patched job's apply-failed,
 * build-failed, panic, boot-timeout FAULT_PATCH, the rest (pass, fail,
 * untested) FAULT_NONE.
 */
enum fault fault_of_verdict(const char *verdict, bool patched);
/* Infra or ours: the job has no result to report (its verdict is infra-error). */
bool fault_no_result(enum fault f);
/* Is a job that ended so run again (below max_attempts)? */
bool fault_retried(enum fault f);

#endif
