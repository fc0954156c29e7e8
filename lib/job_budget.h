/*
 * job_budget: how much of the machine the tracker may ask for ([queue]).
 *
 * A public tracker lets anyone attach patches, and each costs a kernel
 * build and boots, then possibly a re-run, a back-test per kept series and
 * a release bisection.  So jobs that come from the tracker (those with an
 * account, job_queue.h) count against two budgets of a UTC day: their
 * account's (first verdicts only: what the account asked for itself; an
 * [triage] allow_commands account is counted but never limited) and their
 * bug's (every job, follow-up work included).  A job over either waits for
 * the first day with room in both (not_before: that day's 00:00 UTC), at
 * most [queue] defer_days ahead; a first verdict that would have to wait
 * longer is not queued at all.  Follow-up work always waits rather than
 * being dropped: it is bounded by the first verdicts that caused it.
 * Cancelled jobs and infrastructure errors count against nobody.
 *
 * A UTC day rather than a rolling 24 hours because it can be said in one
 * line on the tracker ("after 2026-12-08 00:00 UTC") and is the same for
 * every account.
 *
 * What was held back, or not queued, is said on the bug once a day: one
 * comment (marker "bugbridge-budget: bug <id> <day>") that lists every
 * such job of that day until the poster has tried it (a burst arrives in
 * one poll); it says that later ones get no comment of their own, so a
 * steady stream of patches cannot make bugbridge spam the bug.
 */
#ifndef BB_JOB_BUDGET_H
#define BB_JOB_BUDGET_H

#include <stdbool.h>
#include "buf.h"
#include "db.h"

/* What a job asks of the budgets. */
struct budget_ask {
	const char *account;		/* "" : the operator's: no budget */
	sqlite3_int64 bug_id;		/* 0: no bug budget */
	bool first_verdict;		/* counts against the account's budget */
	bool limited;			/* the account's budget applies (not allow_commands) */
	bool may_refuse;		/* false: wait however long (follow-up work) */
};

struct budget_answer {
	char day[11];			/* the UTC day it counts against ("" : none) */
	long not_before;		/* 0: now; else that day's 00:00 UTC */
	bool refused;			/* no day within [queue] defer_days */
	char why[160];			/* held or refused: the budget, in words */
};

/* The UTC day of t, "YYYY-MM-DD". */
void budget_day_of(long t, char day[11]);

/* Which day the job counts against, and whether it must wait for it. */
int job_budget_admit(struct db *db, const struct budget_ask *ask, long now,
		     struct budget_answer *ans);

/*
 * Say on the bug what was not tested ("- attachment 14 'fix.patch': after
 * 2026-12-08 00:00 UTC (...)"): one comment per bug and UTC day, through
 * the outbox; while it has not been tried, each later line joins it.
 * In the caller's transaction.
 */
int job_budget_note(struct db *db, sqlite3_int64 bug_id, long now, const char *line);

#endif
