/*
 * triage: what bugbridge concludes from finished jobs and tracker comments,
 * and what it writes back.  triage_run() (service.h) drives it; each part is
 * one file:
 *
 *   triage.c                finished jobs -> state, comment, mirror (one transaction)
 *   triage_state.c          the per-bug state machine and its tracker mirror
 *   triage_comment.c        the result comment text
 *   duplicates.c            equal failure signatures across open bugs
 *   owners.c                patch files and trace files -> MAINTAINERS entries
 *   stale.c                 bugs nobody but the reporter and we answer
 *   bisect.c                first bad patch of a series, by binary search
 *   commands_in_comments.c  "bugbridge: test 123" from allowed humans
 *
 * Every write to the tracker is an outbox row (outbox_add) whose marker is
 * also in the text, added in the same transaction as the fact behind it, so
 * that each is posted exactly once.  Markers:
 *   bugbridge-result: job <id>         result comment
 *   bugbridge-state: bug <b> <state> job <id>   mirror update (no text)
 *   bugbridge-dup: <bug> <other>       duplicate link, one per bug
 *   bugbridge-bisect: job <root>       bisection result
 *   bugbridge-refused: comment <id>    refusal of a command
 *   bugbridge-ack: job <id>            acknowledgement (off by default)
 *   bugbridge-cc: bug <b> <hash>       Cc of maintainers (update), per set of people
 */
#ifndef BB_TRIAGE_H
#define BB_TRIAGE_H

#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include "buf.h"
#include "db.h"

struct job_record;

/*
 * finished jobs -> triage state, outbox rows (one transaction per job);
 * also commands in comments, acknowledgements, stale flags and owners.
 * 0 when the step ran, -1 when it failed (logged, retried next cycle).
 */
int triage_run(struct db *db, const volatile sig_atomic_t *stop);

/* --- triage_state.c ------------------------------------------------- */

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

/* --- triage_comment.c ----------------------------------------------- */

/* Comments are plain text of at most this many characters (Bugzilla's limit). */
#define TRIAGE_COMMENT_MAX 65535

/*
 * The result comment of a finished job, loaded with its test results and
 * signatures (job_record.h), ending in its marker line "bugbridge-result:
 * job <id>".  Returns 1 (and leaves out empty) for a job that gets no
 * comment (infra errors are not the patch's fault; bisection steps are
 * reported by bisect.c), 0 with the text.
 */
int triage_comment(const struct job_record *job, struct buf *out);
/* Link to a job's page: [web] base_url (or http://listen) + /job/<id>. */
void triage_job_url(sqlite3_int64 job_id, struct buf *out);
/* Append s with control characters turned into blanks, at most max bytes. */
void triage_add_clean(struct buf *out, const char *s, size_t max);
/* A signature's top five frames (newline-separated), one indented clean line each. */
void triage_add_frames(struct buf *out, const char *frames);

/* --- triage_hunk.c --------------------------------------------------- */

/*
 * An apply-failed verdict_detail as comment lines: the reasons on "Detail:"
 * lines, then the first rejected hunk as an indented block, line by line;
 * bounded in lines and columns, controls blanked, no line a marker.
 */
void triage_add_rejected(struct buf *out, const char *detail);

/* --- comment_detail.c ------------------------------------------------ */

/*
 * A verdict_detail (but apply-failed's) as "Detail:" lines: only lines of
 * a known shape (a compiler error, an undefined symbol, a test count, ...)
 * rebuilt from their parsed, bounded fields; anything else is left out and
 * counted.  No raw log text reaches a comment.
 */
void triage_add_detail(struct buf *out, const char *detail);

/* --- duplicates.c ---------------------------------------------------- */

/*
 * Mark open bugs whose failure signature equals an older open bug's as
 * likely duplicates of it, with one linking comment on each.  Inside the
 * caller's transaction; *marked gets the number of new links.
 */
int duplicates_check(struct db *db, sqlite3_int64 job_id, int *marked);

/* --- owners.c -------------------------------------------------------- */

/* Paths named by a unified diff's headers (---/+++ and diff --git), once each. */
int owners_diff_files(const char *diff, char ***files, int *nfiles);
/* Source paths named in kernel traces ("at drivers/scsi/sd.c:123"). */
int owners_trace_files(const char *text, char ***files, int *nfiles);
void owners_files_free(char **files, int nfiles);
/*
 * Recompute bug_owners for bugs whose patches or comments changed since
 * last time, from [triage] maintainers; queue a Cc update when
 * [triage] cc_maintainers.  Quietly does nothing without a MAINTAINERS file.
 */
int owners_refresh(struct db *db, const volatile sig_atomic_t *stop);

/* --- stale.c --------------------------------------------------------- */

/* Set bugs.needs_attention from [triage] stale_days as of `now`; *flagged: count set. */
int stale_check(struct db *db, time_t now, int *flagged);

/* --- bisect.c -------------------------------------------------------- */

/*
 * Binary search over a series of n patches whose prefix of `good` patches
 * passes and of `bad` patches fails (0 <= good < bad <= n): the next prefix
 * length to test, or 0 when bad is the first bad patch.
 */
int bisect_next(int good, int bad);

/*
 * A finished job of a series (kind test/bisect/bisect-step), loaded with
 * its test results and signatures: start or continue the bisection it
 * belongs to, enqueueing the next bisect-step, or queue the comment naming
 * the first bad patch.  Inside the caller's transaction.
 */
int bisect_job_done(struct db *db, const struct job_record *job);

/* --- commands_in_comments.c ----------------------------------------- */

enum comment_cmd_kind { COMMENT_CMD_TEST, COMMENT_CMD_RETEST, COMMENT_CMD_BISECT,
			COMMENT_CMD_IGNORE };

struct comment_cmd {
	enum comment_cmd_kind kind;
	long long attachment_id;	/* test, bisect */
};

/*
 * The commands in a comment's text: lines "bugbridge: <verb> [id]", not
 * quoted ("> ..." lines are ignored).  Fills at most max; returns the count.
 */
int comment_cmd_parse(const char *text, struct comment_cmd *cmds, int max);
/* Is author in [triage] allow_commands? (case-insensitive) */
bool comment_cmd_allowed(const char *author);
/* Act on unhandled human comments, each once. */
int comment_cmd_run(struct db *db, const volatile sig_atomic_t *stop);

#endif
