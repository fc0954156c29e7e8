/*
 * stale: bugs nobody but the reporter and we have answered for
 * [triage] stale_days (stale.c).
 */
#ifndef BB_STALE_H
#define BB_STALE_H

#include <time.h>
#include "db.h"

/* Set bugs.needs_attention from [triage] stale_days as of `now`; *flagged: count set. */
int stale_check(struct db *db, time_t now, int *flagged);

#endif
