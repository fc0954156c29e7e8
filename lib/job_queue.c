/*
 * job_queue: insert queued jobs.  See job_queue.h.
 */
#include "job_queue.h"
#include "bases.h"
#include "config.h"
#include "log.h"
#include "wake.h"

#include <ctype.h>
#include <string.h>

DB_SQL(sql_job_enqueue,
       "INSERT INTO jobs (bug_id, candidate_id, parent_id, kind, base, patch_count,"
       " with_baseline, state, base_reason, purpose, boot_args)"
       " VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)");
/* What a bug says of its kernel: the fields, then its description (comment 0). */
DB_SQL(sql_job_bug_versions,
       "SELECT b.cf_kernel_version, b.version, IFNULL((SELECT substr(c.text, 1, 65536)"
       " FROM comments c WHERE c.bug_id = b.id AND c.count = 0 AND c.is_private = 0), '')"
       " FROM bugs b WHERE b.id = ?");

static void bind_id(sqlite3_stmt *st, int idx, sqlite3_int64 id)
{
	if (id)
		sqlite3_bind_int64(st, idx, id);
	else
		sqlite3_bind_null(st, idx);
}

/*
 * The base for a job that names none: the kept series nearest what its
 * bug says of its kernel (bases.h), else the default; and why.
 */
static void choose_base(struct db *db, sqlite3_int64 bug_id, struct buf *base, struct buf *why)
{
	sqlite3_stmt *st = bug_id ? db_stmt(db, sql_job_bug_versions) : NULL;
	struct buf def = BUF_INIT;
	char **kept;
	int n;

	bases_default(&def);
	kept = bases_kept(&n);
	if (st) {
		sqlite3_bind_int64(st, 1, bug_id);
		if (sqlite3_step(st) == SQLITE_ROW)
			base_choose(db_col_text(st, 0), db_col_text(st, 1), db_col_text(st, 2), kept,
				    n, def.ptr, base, why);
		sqlite3_reset(st);
	}
	if (!base->len) {
		buf_addstr(base, def.ptr);
		buf_addstr(why, bug_id ? "the bug is not one bugbridge watches: the default base"
			   : "no bug: the default base");
	}
	bases_free(kept, n);
	buf_release(&def);
}

bool job_boot_args_ok(const char *s)
{
	if (!s)
		return true;
	if (strlen(s) > 512)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.,:=- ", *s))
			return false;
	return true;
}

int job_enqueue(struct db *db, const struct job_spec *spec, sqlite3_int64 *id)
{
	sqlite3_stmt *st;
	struct buf base = BUF_INIT, why = BUF_INIT;
	int ret;

	if (!job_boot_args_ok(spec->boot_args))
		return error("job: boot arguments '%s' refused: only [A-Za-z0-9_.,:=-] tokens",
			     spec->boot_args);
	if (spec->base) {
		buf_addstr(&base, spec->base);
		if (spec->base_reason)
			buf_addstr(&why, spec->base_reason);
	} else {
		choose_base(db, spec->bug_id, &base, &why);
	}
	st = db_stmt(db, sql_job_enqueue);
	if (!st) {
		ret = -1;
		goto out;
	}
	bind_id(st, 1, spec->bug_id);
	bind_id(st, 2, spec->candidate_id);
	bind_id(st, 3, spec->parent_id);
	db_bind_text(st, 4, spec->kind ? spec->kind : "test");
	db_bind_text(st, 5, base.ptr);
	sqlite3_bind_int(st, 6, spec->patch_count);
	sqlite3_bind_int(st, 7, spec->with_baseline);
	if (why.len)
		db_bind_text(st, 8, why.ptr);
	else
		sqlite3_bind_null(st, 8);
	db_bind_text(st, 9, spec->purpose ? spec->purpose : "");
	db_bind_text(st, 10, spec->boot_args ? spec->boot_args : "");
	ret = db_step_done(db, st);
	if (ret) {
		error("job: cannot queue job for bug %lld", (long long)spec->bug_id);
		goto out;
	}
	if (id)
		*id = db_last_id(db);
	db_wake_after_commit(db, WAKE_JOBS);
	log_info("job: queued job %lld for bug %lld on %s", (long long)db_last_id(db),
		 (long long)spec->bug_id, base.ptr);
out:
	buf_release(&base);
	buf_release(&why);
	return ret;
}
