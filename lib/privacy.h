/*
 * privacy: the one answer to "is this bug, or this job, private?".
 *
 * A bug in any tracker group is private; so is a job of such a bug, or of a
 * candidate made from a comment or attachment that is (or became) private.
 * The rule is SQL, written once beside the schema (the private_bug_ids and
 * private_job_ids views, 0008_private.sql and 0015_private_one.sql); these
 * read it.  Queries that need it in a join use the views directly.
 *
 * [tracker] private_bugs says what is done with private bugs: skip (never
 * tested, shown or written to) or test (tested, results posted as private
 * comments, shown only to API token holders).
 */
#ifndef BB_PRIVACY_H
#define BB_PRIVACY_H

#include <stdbool.h>
#include "db.h"

/* [tracker] private_bugs = skip */
bool private_bugs_skipped(void);
/*
 * Is the bug private?  A bug we do not track is public.  On a database
 * error the answer is true (fail closed), logged, and *failed is set when
 * failed is not NULL (for a caller that would rather try again later).
 */
bool bug_is_private(struct db *db, sqlite3_int64 bug_id, bool *failed);
/* Is the job private?  The same contract; a job we do not know is public. */
bool job_is_private(struct db *db, sqlite3_int64 job_id, bool *failed);

#endif
