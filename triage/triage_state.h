/*
 * triage_state: the per-bug state machine (triage_state.c): what one
 * finished job shows about its bug, the state that follows, and the state's
 * mirror in the tracker (whiteboard tag, keywords, status).
 */
#ifndef BB_TRIAGE_STATE_H
#define BB_TRIAGE_STATE_H

#include <stdbool.h>
#include "buf.h"
#include "db.h"

enum triage_state {
	TRIAGE_NEW,
	TRIAGE_NEEDS_REPRO,
	TRIAGE_REPRODUCED,
	TRIAGE_FIX_CANDIDATE,
	TRIAGE_FIX_VERIFIED,
	TRIAGE_NOT_REPRODUCIBLE,
	TRIAGE_DUPLICATE,
};

const char *triage_state_name(enum triage_state s);
/* -1 for a name that is not a state. */
int triage_state_parse(const char *name);

/* What one finished job shows about its bug. */
struct triage_fact {
	bool infra;		/* infra-error: says nothing about the bug or the patch */
	bool has_patch;		/* the job applied a candidate */
	bool is_retest;		/* kind 'retest': a re-run of an earlier fix */
	bool baseline_ran;	/* unpatched results exist (or the job is baseline-only) */
	bool baseline_failed;	/* baseline failed the suite or showed a signature */
	bool patched_ran;	/* the patched kernel ran the suite */
	bool patched_passed;
};

/* The bug's next state after a job; cur when the job changes nothing. */
enum triage_state triage_next(enum triage_state cur, const struct triage_fact *f);

/*
 * The mirror of a state in the tracker, as the JSON body of PUT
 * /rest/bug/{id} (no api_key), following [triage] mirror and set_status.
 * whiteboard and keywords are the bug's current values; dupe_of is used for
 * `duplicate`.  Leaves out empty and returns 1 when there is nothing to send.
 */
int triage_mirror_payload(enum triage_state s, const char *whiteboard,
			  const char *keywords, const char *status,
			  sqlite3_int64 dupe_of, struct buf *out);
/* The whiteboard with any "[bugbridge: ...]" tag replaced by this state's. */
void triage_whiteboard(const char *whiteboard, enum triage_state s, struct buf *out);

/*
 * Move bug to state s (stored in bugs.triage_state) and queue its mirror as
 * an update row named after cause_job.  Inside the caller's transaction.
 */
int triage_set_state(struct db *db, sqlite3_int64 bug_id, enum triage_state s,
		     sqlite3_int64 cause_job, sqlite3_int64 dupe_of);

#endif
