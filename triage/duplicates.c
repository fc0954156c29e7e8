/*
 * duplicates: two open bugs whose kernels fail with the same signature are
 * probably one bug.  Signatures are already normalised by the runner
 * (addresses, timestamps, pids and CPU numbers stripped; title plus top
 * frames; hashed), so equality of the hash is the test.
 *
 * Which signatures speak for a bug: only those of an unpatched kernel, the
 * baseline run of a job (or a job without a patch).  A patched kernel runs
 * whatever the patch's author wrote: a patch that prints a forged Oops must
 * not make someone else's bug a duplicate (and, with set_status, close it).
 * Private bugs (in a tracker group) take no part: a link would name one on
 * a bug that others can read.
 *
 * The newer bug is marked `duplicate` of the older one, and each of the two
 * gets ONE comment naming the other.  The markers "bugbridge-dup: <bug>
 * <other>" make the pair's comments idempotent however many jobs show the
 * same signature again.
 */
#include "duplicates.h"
#include "triage_state.h"
#include "triage_comment.h"
#include "xalloc.h"
#include "log.h"
#include "outbox.h"

#include <stdlib.h>
#include <string.h>

/* Unpatched signatures of a job, and an open public bug's unpatched match. */
DB_SQL(sql_dup_matches,
       "SELECT s.hash, s.kind, s.title, s.frames, o.bug_id, MIN(o.job_id)"
       " FROM signatures s JOIN jobs j ON j.id = s.job_id"
       " JOIN (SELECT s2.hash AS hash, j2.bug_id AS bug_id, j2.id AS job_id"
       "       FROM signatures s2 JOIN jobs j2 ON j2.id = s2.job_id"
       "       WHERE s2.variant = 'baseline' OR j2.candidate_id IS NULL) o"
       "   ON o.hash = s.hash AND o.bug_id <> j.bug_id"
       " JOIN bugs b ON b.id = o.bug_id AND b.is_open = 1 AND b.ignored = 0"
       "  AND b.id NOT IN (SELECT id FROM private_bug_ids)"
       " JOIN bugs me ON me.id = j.bug_id AND me.is_open = 1 AND me.ignored = 0"
       "  AND me.id NOT IN (SELECT id FROM private_bug_ids)"
       " WHERE s.job_id = ? AND (s.variant = 'baseline' OR j.candidate_id IS NULL)"
       " GROUP BY s.hash, o.bug_id ORDER BY o.bug_id LIMIT 20");
DB_SQL(sql_dup_bug, "SELECT IFNULL(bug_id, 0) FROM jobs WHERE id = ?");
DB_SQL(sql_dup_state, "SELECT triage_state FROM bugs WHERE id = ?");

struct dup_sig {
	char *kind, *title, *frames;
};

static void link_text(struct buf *out, sqlite3_int64 bug, sqlite3_int64 other, bool is_dup,
		      const struct dup_sig *sig, sqlite3_int64 my_job, sqlite3_int64 other_job)
{
	if (is_dup)
		buf_addf(out, "bugbridge: this bug is likely a duplicate of bug %lld.\n",
			 (long long)other);
	else
		buf_addf(out, "bugbridge: bug %lld is likely a duplicate of this bug.\n",
			 (long long)other);
	buf_addstr(out, "Kernels tested for both fail with the same signature:\n\n  ");
	triage_add_clean(out, sig->kind, 20);
	buf_addstr(out, ": ");
	triage_add_clean(out, sig->title, 200);
	buf_addch(out, '\n');
	triage_add_frames(out, sig->frames);
	buf_addf(out, "\nBug %lld: ", (long long)bug);
	triage_job_url(my_job, out);
	buf_addf(out, "\nBug %lld: ", (long long)other);
	triage_job_url(other_job, out);
	buf_addf(out, "\n\nbugbridge-dup: %lld %lld\n", (long long)bug, (long long)other);
}

static int post_link(struct db *db, sqlite3_int64 bug, sqlite3_int64 other, bool is_dup,
		     const struct dup_sig *sig, sqlite3_int64 my_job, sqlite3_int64 other_job)
{
	struct buf text = BUF_INIT, marker = BUF_INIT;
	int ret;

	link_text(&text, bug, other, is_dup, sig, my_job, other_job);
	buf_addf(&marker, "bugbridge-dup: %lld %lld", (long long)bug, (long long)other);
	ret = outbox_add(db, "comment", bug, my_job, marker.ptr, text.ptr);
	buf_release(&text);
	buf_release(&marker);
	return ret;
}

/* newer becomes a duplicate of older unless it already is one (of older or another). */
static int mark_pair(struct db *db, sqlite3_int64 older, sqlite3_int64 newer,
		     sqlite3_int64 cause_job, bool *marked)
{
	sqlite3_stmt *st = db_stmt(db, sql_dup_state);
	bool is_dup = false;

	*marked = false;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, newer);
	if (sqlite3_step(st) == SQLITE_ROW) {
		is_dup = !strcmp(db_col_text(st, 0), "duplicate");
	}
	sqlite3_reset(st);
	if (is_dup)
		return 0;	/* linked already: this pair's comments are queued, or another's */
	*marked = true;
	return triage_set_state(db, newer, TRIAGE_DUPLICATE, cause_job, older);
}

static sqlite3_int64 job_bug(struct db *db, sqlite3_int64 job_id)
{
	sqlite3_stmt *st = db_stmt(db, sql_dup_bug);
	sqlite3_int64 bug = 0;

	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, job_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		bug = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return bug;
}

struct dup_match {
	struct dup_sig sig;
	sqlite3_int64 other_bug, other_job;
};

static int collect(struct db *db, sqlite3_int64 job_id, struct dup_match **m, int *n)
{
	sqlite3_stmt *st = db_stmt(db, sql_dup_matches);
	int rc;

	*m = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, job_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct dup_match *x;

		*m = xrealloc(*m, (*n + 1) * sizeof(**m));
		x = &(*m)[(*n)++];
		x->sig.kind = xstrdup(db_col_text(st, 1));
		x->sig.title = xstrdup(db_col_text(st, 2));
		x->sig.frames = xstrdup(db_col_text(st, 3));
		x->other_bug = sqlite3_column_int64(st, 4);
		x->other_job = sqlite3_column_int64(st, 5);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : error("duplicates: cannot compare job %lld: %s",
					      (long long)job_id, db_errmsg(db));
}

static void matches_free(struct dup_match *m, int n)
{
	for (int i = 0; i < n; i++) {
		free(m[i].sig.kind);
		free(m[i].sig.title);
		free(m[i].sig.frames);
	}
	free(m);
}

int duplicates_check(struct db *db, sqlite3_int64 job_id, int *marked)
{
	struct dup_match *m = NULL;
	sqlite3_int64 bug = job_bug(db, job_id);
	int n = 0, ret = -1;

	*marked = 0;
	if (!bug)
		return 0;
	if (collect(db, job_id, &m, &n))
		goto out;
	for (int i = 0; i < n; i++) {
		sqlite3_int64 other = m[i].other_bug;
		sqlite3_int64 older = other < bug ? other : bug, newer = other < bug ? bug : other;
		bool linked;

		if (mark_pair(db, older, newer, job_id, &linked))
			goto out;
		if (!linked)
			continue;
		if (post_link(db, bug, other, bug == newer, &m[i].sig, job_id, m[i].other_job) ||
		    post_link(db, other, bug, other == newer, &m[i].sig, m[i].other_job, job_id))
			goto out;
		log_info("duplicates: bug %lld is likely a duplicate of bug %lld",
			 (long long)newer, (long long)older);
		(*marked)++;
		break;	/* one link per job is enough; the oldest match wins */
	}
	ret = 0;
out:
	matches_free(m, n);
	return ret;
}
