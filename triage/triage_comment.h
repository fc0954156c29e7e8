/*
 * triage_comment: the result comment's text (triage_comment.c, its tests
 * and signatures in comment_tests.c) and the parts other comments share:
 * job links, clean text, signature frames, an apply failure's rejected
 * hunk (triage_hunk.c) and a verdict's detail rebuilt from parsed fields
 * (comment_detail.c).  No raw log text reaches a comment.
 */
#ifndef BB_TRIAGE_COMMENT_H
#define BB_TRIAGE_COMMENT_H

#include <stdbool.h>
#include <stddef.h>
#include "buf.h"
#include "db.h"

struct job_record;

/* Comments are plain text of at most this many characters (Bugzilla's limit). */
#define TRIAGE_COMMENT_MAX 65535

/*
 * The result comment of a finished job, loaded with its test results and
 * signatures (job_record.h), ending in its marker line "bugbridge-result:
 * job <id>".  db (may be NULL) is read for a re-run's first run, which the
 * re-run is compared with.  Returns 1 (and leaves out empty) for a job that
 * gets no comment (infra errors are not the patch's fault; bisection steps
 * are reported by bisect.c), 0 with the text, -1 on a database error.
 */
int triage_comment(struct db *db, const struct job_record *job, struct buf *out);
/* Link to a job's page: [web] base_url (or http://listen) + /job/<id>. */
void triage_job_url(sqlite3_int64 job_id, struct buf *out);
/* Append s with control characters turned into blanks, at most max bytes. */
void triage_add_clean(struct buf *out, const char *s, size_t max);
/* A signature's top five frames (newline-separated), one indented clean line each. */
void triage_add_frames(struct buf *out, const char *frames);

/* --- comment_tests.c --- */

/*
 * The tests of a job as comment lines: a table (status columns, then the
 * name) of the tests whose verdict differs between the two runs compared or
 * that fail, at most 10, and one line counting the rest ("69 more tests
 * pass on both").  The runs compared: the baseline and the patched kernel;
 * else, for a re-run, first_run's patched kernel (NULL: none) and the
 * re-run; else the one run.  Nothing for a job without test results.
 */
void triage_add_tests(struct buf *out, const struct job_record *job,
		      const struct job_record *first_run);
/*
 * The job's failure signatures, one line each ("kind: title in top_frame"),
 * at most 4; label: say which kernel ("[baseline]") each is of.
 */
void triage_add_signatures(struct buf *out, const struct job_record *job, bool label);

/* --- triage_hunk.c --- */

/*
 * An apply-failed verdict_detail as comment lines: the reasons on "Detail:"
 * lines, then the first rejected hunk as an indented block, line by line;
 * bounded in lines and columns, controls blanked, no line a marker.
 */
void triage_add_rejected(struct buf *out, const char *detail);

/* --- comment_detail.c --- */

/*
 * A verdict_detail (but apply-failed's) as "Detail:" lines: only lines of
 * a known shape (a compiler error, an undefined symbol, a test count, ...)
 * rebuilt from their parsed, bounded fields; anything else is left out and
 * counted.  No raw log text reaches a comment.  suite_ran (a pass or fail
 * verdict): the tests table says the counts and failures, so only our own
 * notes are shown and nothing is counted.
 */
void triage_add_detail(struct buf *out, const char *detail, bool suite_ran);

/* --- comment_untested.c --- */

/*
 * An untested job's verdict_detail as "Untested:" lines, one per file the
 * runner could not build or measure, each in a known shape, bounded.
 */
void triage_add_untested(struct buf *out, const char *detail);

#endif
