/*
 * duplicates: open bugs that fail with the same signature, linked once
 * (duplicates.c).
 */
#ifndef BB_DUPLICATES_H
#define BB_DUPLICATES_H

#include "db.h"

/*
 * Mark open bugs whose failure signature equals an older open bug's as
 * likely duplicates of it, with one linking comment on each.  Inside the
 * caller's transaction; *marked gets the number of new links.
 */
int duplicates_check(struct db *db, sqlite3_int64 job_id, int *marked);

#endif
