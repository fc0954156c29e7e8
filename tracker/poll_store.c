/*
 * poll_store: one poll's findings -> bugs, comments, attachments,
 * candidates, jobs, poll_state; all in one transaction.  See poll.h.
 *
 * Re-storing the same data changes nothing: a bug row is only updated (and
 * its updated_at moved) when a field differs, comments are insert-or-ignore
 * by tracker id, and attachments keep their data once they have it.
 */
#include "candidates.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"
#include "poll.h"
#include "privacy.h"
#include "sha256.h"

#include <stdlib.h>
#include <string.h>

DB_SQL(sql_poll_bug_upsert,
       "INSERT INTO bugs (id, product, component, status, resolution, is_open, summary,"
       " creator, assigned_to, whiteboard, keywords, version, creation_time,"
       " last_change_time, groups, closed_time, cf_kernel_version)"
       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
       "  CASE WHEN ?6 THEN NULL ELSE ?14 END, ?16)"
       " ON CONFLICT (id) DO UPDATE SET product = excluded.product,"
       "  component = excluded.component, status = excluded.status,"
       "  resolution = excluded.resolution, is_open = excluded.is_open,"
       "  summary = excluded.summary, creator = excluded.creator,"
       "  assigned_to = excluded.assigned_to, whiteboard = excluded.whiteboard,"
       "  keywords = excluded.keywords, version = excluded.version,"
       "  cf_kernel_version = excluded.cf_kernel_version,"
       "  creation_time = excluded.creation_time,"
       "  last_change_time = excluded.last_change_time, groups = excluded.groups,"
       "  closed_time = CASE WHEN excluded.is_open THEN NULL"
       "   WHEN bugs.is_open THEN excluded.last_change_time ELSE bugs.closed_time END,"
       "  updated_at = strftime('%s', 'now')"
       " WHERE bugs.product IS NOT excluded.product OR bugs.component IS NOT excluded.component"
       "  OR bugs.status IS NOT excluded.status OR bugs.resolution IS NOT excluded.resolution"
       "  OR bugs.is_open IS NOT excluded.is_open OR bugs.summary IS NOT excluded.summary"
       "  OR bugs.creator IS NOT excluded.creator OR bugs.assigned_to IS NOT excluded.assigned_to"
       "  OR bugs.whiteboard IS NOT excluded.whiteboard OR bugs.keywords IS NOT excluded.keywords"
       "  OR bugs.version IS NOT excluded.version"
       "  OR bugs.cf_kernel_version IS NOT excluded.cf_kernel_version"
       "  OR bugs.last_change_time IS NOT excluded.last_change_time"
       "  OR bugs.groups IS NOT excluded.groups");

DB_SQL(sql_poll_comment_add,
       "INSERT INTO comments (id, bug_id, count, author, time, text, is_private,"
       " attachment_id, is_ours) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
       " ON CONFLICT (id) DO NOTHING");

DB_SQL(sql_poll_attachment_add,
       "INSERT INTO attachments (id, bug_id, file_name, summary, content_type, creator,"
       " creation_time, last_change_time, is_patch, is_obsolete, size, sha256, data,"
       " is_private) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
       " ON CONFLICT (id) DO NOTHING");

DB_SQL(sql_poll_attachment_flags,
       "UPDATE attachments SET is_patch = ?2, is_obsolete = ?3, summary = ?4,"
       " last_change_time = ?5, is_private = ?6 WHERE id = ?1 AND (is_patch IS NOT ?2"
       " OR is_obsolete IS NOT ?3 OR summary IS NOT ?4 OR last_change_time IS NOT ?5"
       " OR is_private IS NOT ?6)");

DB_SQL(sql_poll_comment_privacy,
       "UPDATE comments SET is_private = ?2 WHERE id = ?1 AND is_private IS NOT ?2");

/* A bug that turned private while private_bugs = skip: what was queued never runs. */
DB_SQL(sql_poll_cancel_private,
       "UPDATE jobs SET state = 'cancelled', cancel = 1 WHERE bug_id = ? AND state = 'queued'");

DB_SQL(sql_poll_attachment_fill,
       "UPDATE attachments SET data = ?2, sha256 = ?3, size = ?4 WHERE id = ?1 AND data IS NULL");

DB_SQL(sql_poll_state_ok,
       "UPDATE poll_state SET cursor = coalesce(?1, cursor), last_poll = strftime('%s', 'now'),"
       " last_ok = strftime('%s', 'now'), last_error = NULL, requests = requests + ?2"
       " WHERE id = 1");

DB_SQL(sql_poll_state_error,
       "UPDATE poll_state SET last_poll = strftime('%s', 'now'), last_error = ?1,"
       " requests = requests + ?2 WHERE id = 1");

DB_SQL(sql_poll_tracker_version,
       "UPDATE tracker_state SET url = ?1, version = ?2 WHERE id = 1"
       " AND (url IS NOT ?1 OR version IS NOT ?2)");

DB_SQL(sql_poll_tracker_watch,
       "UPDATE tracker_state SET watch = ?1, recheck = ?2 WHERE id = 1"
       " AND (watch IS NOT ?1 OR recheck IS NOT ?2)");

void poll_fetch_release(struct poll_fetch *f)
{
	bz_bug_list_release(&f->bugs);
	bz_comment_list_release(&f->comments);
	bz_attachment_list_release(&f->attachments);
	free(f->cursor);
	free(f->url);
	free(f->version);
	free(f->watch);
	free(f->recheck);
	trust_release(&f->trust);
	bot_release(&f->bot);
	memset(f, 0, sizeof(*f));
}

bool poll_private_skipped(const struct bz_bug *b)
{
	return b->groups && *b->groups && private_bugs_skipped();
}

static int store_bug(struct db *db, const struct bz_bug *b, int *changed)
{
	sqlite3_stmt *st = db_stmt(db, sql_poll_bug_upsert);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, b->id);
	db_bind_text(st, 2, b->product);
	db_bind_text(st, 3, b->component);
	db_bind_text(st, 4, b->status);
	db_bind_text(st, 5, b->resolution);
	sqlite3_bind_int(st, 6, b->is_open);
	db_bind_text(st, 7, b->summary);
	db_bind_text(st, 8, b->creator);
	db_bind_text(st, 9, b->assigned_to);
	db_bind_text(st, 10, b->whiteboard);
	db_bind_text(st, 11, b->keywords);
	db_bind_text(st, 12, b->version);
	db_bind_text(st, 13, b->creation_time);
	db_bind_text(st, 14, b->last_change_time);
	db_bind_text(st, 15, b->groups ? b->groups : "");
	db_bind_text(st, 16, b->cf_kernel_version ? b->cf_kernel_version : "");
	if (db_step_done(db, st))
		return error("poll: cannot store bug %ld", b->id);
	*changed += sqlite3_changes(db->h);
	if (!poll_private_skipped(b))
		return 0;
	st = db_stmt(db, sql_poll_cancel_private);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, b->id);
	if (db_step_done(db, st))
		return -1;
	if (sqlite3_changes(db->h))
		log_info("poll: bug %ld is private ([tracker] private_bugs = skip): %d queued"
			 " jobs cancelled", b->id, sqlite3_changes(db->h));
	return 0;
}

/* The comment's row; *fresh: it is new (its candidate comes later: comment_candidate). */
static int store_comment(struct db *db, const struct bz_comment *c, const struct bot *bot,
			 int *added, bool *fresh)
{
	sqlite3_stmt *st = db_stmt(db, sql_poll_comment_add);
	bool ours = bot_wrote(bot, c->creator);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, c->id);
	sqlite3_bind_int64(st, 2, c->bug_id);
	sqlite3_bind_int(st, 3, c->count);
	db_bind_text(st, 4, c->creator);
	db_bind_text(st, 5, c->time);
	db_bind_text(st, 6, c->text);
	sqlite3_bind_int(st, 7, c->is_private);
	if (c->attachment_id)
		sqlite3_bind_int64(st, 8, c->attachment_id);
	sqlite3_bind_int(st, 9, ours);
	if (db_step_done(db, st))
		return error("poll: cannot store comment %ld of bug %ld", c->id, c->bug_id);
	if (!sqlite3_changes(db->h)) {
		/* seen before; only its privacy can have changed */
		st = db_stmt(db, sql_poll_comment_privacy);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, c->id);
		sqlite3_bind_int(st, 2, c->is_private);
		return db_step_done(db, st);
	}
	(*added)++;
	*fresh = true;
	return 0;
}

static int comment_candidate(struct db *db, const struct bz_comment *c, const struct poll_fetch *f,
			     int *jobs)
{
	bool created;

	if (candidate_from_comment(db, c, bot_wrote(&f->bot, c->creator),
				   trust_allows(&f->trust, c->creator), &created))
		return -1;
	*jobs += created;
	return 0;
}

static int store_attachment(struct db *db, const struct bz_attachment *a,
			    const struct trust *t, int *added, int *jobs)
{
	sqlite3_stmt *st = db_stmt(db, sql_poll_attachment_add);
	char hex[SHA256_HEX_LEN] = "";
	bool created, is_new;

	if (!st)
		return -1;
	if (a->has_data)
		sha256_hex(a->data, a->data_len, hex);
	sqlite3_bind_int64(st, 1, a->id);
	sqlite3_bind_int64(st, 2, a->bug_id);
	db_bind_text(st, 3, a->file_name);
	db_bind_text(st, 4, a->summary);
	db_bind_text(st, 5, a->content_type);
	db_bind_text(st, 6, a->creator);
	db_bind_text(st, 7, a->creation_time);
	db_bind_text(st, 8, a->last_change_time);
	sqlite3_bind_int(st, 9, a->is_patch);
	sqlite3_bind_int(st, 10, a->is_obsolete);
	sqlite3_bind_int64(st, 11, a->has_data ? (sqlite3_int64)a->data_len : a->size);
	db_bind_text(st, 12, hex);
	if (a->has_data)
		sqlite3_bind_blob(st, 13, a->data, (int)a->data_len, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 14, a->is_private);
	if (db_step_done(db, st))
		return error("poll: cannot store attachment %ld of bug %ld", a->id, a->bug_id);
	is_new = sqlite3_changes(db->h) > 0;
	if (!is_new) {
		st = db_stmt(db, sql_poll_attachment_flags);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, a->id);
		sqlite3_bind_int(st, 2, a->is_patch);
		sqlite3_bind_int(st, 3, a->is_obsolete);
		db_bind_text(st, 4, a->summary);
		db_bind_text(st, 5, a->last_change_time);
		sqlite3_bind_int(st, 6, a->is_private);
		if (db_step_done(db, st))
			return -1;
		if (a->has_data) {
			/* a row stored without its data gets it now */
			st = db_stmt(db, sql_poll_attachment_fill);
			if (!st)
				return -1;
			sqlite3_bind_int64(st, 1, a->id);
			sqlite3_bind_blob(st, 2, a->data, (int)a->data_len, SQLITE_TRANSIENT);
			db_bind_text(st, 3, hex);
			sqlite3_bind_int64(st, 4, (sqlite3_int64)a->data_len);
			if (db_step_done(db, st))
				return -1;
			is_new = sqlite3_changes(db->h) > 0;
		}
	}
	if (!is_new || !a->has_data)
		return 0;
	(*added)++;
	if (candidate_from_attachment(db, a, trust_allows(t, a->creator), &created))
		return -1;
	*jobs += created;
	return 0;
}

static int store_state(struct db *db, const struct poll_fetch *f, unsigned long requests)
{
	sqlite3_stmt *st;

	if (f->version) {
		st = db_stmt(db, sql_poll_tracker_version);
		if (!st)
			return -1;
		db_bind_text(st, 1, f->url);
		db_bind_text(st, 2, f->version);
		if (db_step_done(db, st))
			return -1;
	}
	if (f->watch) {
		st = db_stmt(db, sql_poll_tracker_watch);
		if (!st)
			return -1;
		db_bind_text(st, 1, f->watch);
		db_bind_text(st, 2, f->recheck ? f->recheck : "");
		if (db_step_done(db, st))
			return -1;
	}
	st = db_stmt(db, sql_poll_state_ok);
	if (!st)
		return -1;
	db_bind_text(st, 1, f->cursor);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)requests);
	return db_step_done(db, st);
}

int poll_store(struct db *db, struct poll_fetch *f, unsigned long requests)
{
	int bugs = 0, comments = 0, attachments = 0, jobs = 0;
	bool *fresh = xcalloc(f->comments.n + 1, sizeof(*fresh));

	if (db_begin(db)) {
		free(fresh);
		return -1;
	}
	/* is_ours of what is stored already, when the bot's login is new to it */
	if (bot_save(&f->bot, db))
		goto fail;
	for (size_t i = 0; i < f->bugs.n; i++)
		if (store_bug(db, &f->bugs.v[i], &bugs))
			goto fail;
	/* every comment's row first: a job's base is chosen from its bug's description */
	for (size_t i = 0; i < f->comments.n; i++)
		if (store_comment(db, &f->comments.v[i], &f->bot, &comments, &fresh[i]))
			goto fail;
	/* attachments before comments: an inline diff equal to an attached one is the attachment's */
	for (size_t i = 0; i < f->attachments.n; i++)
		if (store_attachment(db, &f->attachments.v[i], &f->trust, &attachments, &jobs))
			goto fail;
	for (size_t i = 0; i < f->comments.n; i++)
		if (fresh[i] && comment_candidate(db, &f->comments.v[i], f, &jobs))
			goto fail;
	free(fresh);
	fresh = NULL;
	if (store_state(db, f, requests) || db_commit(db))
		goto fail;
	if (bugs || comments || attachments || jobs)
		log_info("poll: %d bugs changed, %d new comments, %d new attachments, %d jobs queued",
			 bugs, comments, attachments, jobs);
	return 0;
fail:
	free(fresh);
	db_rollback(db);
	return error("poll: nothing stored; the database is as it was");
}

void poll_record_error(struct db *db, const char *error, unsigned long requests)
{
	sqlite3_stmt *st = db_stmt(db, sql_poll_state_error);

	if (!st)
		return;
	db_bind_text(st, 1, error);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)requests);
	db_step_done(db, st);
}
