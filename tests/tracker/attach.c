/*
 * attach: attachments: list a bug's, get one, add, update.
 *
 * Bugzilla 5.2 prints is_patch, is_obsolete and is_private as integers 0/1
 * (not booleans, whatever its docs say), `data` as base64 without line
 * breaks and `size` as the decoded size.  A nonexistent attachment id is not
 * an error: the answer is 200 with empty maps.  Adding an attachment adds
 * the comment "Created attachment N\n<summary>[\n\n<comment>]".
 */
#include "standin.h"
#include "base64.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DB_SQL(sql_attach_insert, "INSERT INTO sa_attachments(bug, creator, file_name,"
       " summary, content_type, data, is_patch, is_obsolete, is_private,"
       " creation_time, last_change_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
#define ATTACH_COLS "a.id, a.bug, u.login, a.file_name, a.summary, a.content_type," \
	" a.data, a.is_patch, a.is_obsolete, a.is_private, a.creation_time," \
	" a.last_change_time, a.creator"
DB_SQL(sql_attach_of_bug, "SELECT " ATTACH_COLS " FROM sa_attachments a"
       " JOIN sa_users u ON u.id = a.creator WHERE a.bug = ? ORDER BY a.id");
DB_SQL(sql_attach_get, "SELECT " ATTACH_COLS " FROM sa_attachments a"
       " JOIN sa_users u ON u.id = a.creator WHERE a.id = ?");
DB_SQL(sql_attach_update, "UPDATE sa_attachments SET file_name = ?, summary = ?,"
       " content_type = ?, is_patch = ?, is_obsolete = ?, is_private = ?,"
       " last_change_time = ? WHERE id = ?");

int sa_attach_insert(struct db *db, int bug, int who, const char *file_name,
		     const char *summary, const char *content_type,
		     const void *data, size_t len, bool is_patch, bool is_obsolete,
		     bool is_private, const char *comment, time_t when, int *out_id)
{
	sqlite3_stmt *st = db_stmt(db, sql_attach_insert);
	struct buf text = BUF_INIT;
	int cid, ret = -1;

	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, bug);
	sqlite3_bind_int(st, 2, who);
	db_bind_text(st, 3, file_name);
	db_bind_text(st, 4, summary);
	db_bind_text(st, 5, content_type);
	sqlite3_bind_blob(st, 6, data, (int)len, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 7, is_patch);
	sqlite3_bind_int(st, 8, is_obsolete);
	sqlite3_bind_int(st, 9, is_private);
	sqlite3_bind_int64(st, 10, when);
	sqlite3_bind_int64(st, 11, when);
	if (db_step_done(db, st))
		return -1;
	*out_id = (int)db_last_id(db);
	buf_addf(&text, "Created attachment %d\n%s", *out_id, summary);
	if (comment && *comment)
		buf_addf(&text, "\n\n%s", comment);
	if (sa_comment_add(db, bug, who, text.ptr, is_private, *out_id, when, &cid) == 0)
		ret = 0;
	buf_release(&text);
	return ret;
}

static struct json_object *attach_json(struct sa_req *r, sqlite3_stmt *st)
{
	struct json_object *a = json_object_new_object();
	const unsigned char *data = sqlite3_column_blob(st, 6);
	int len = sqlite3_column_bytes(st, 6);
	struct buf enc = BUF_INIT;

	json_object_object_add(a, "id", json_object_new_int(sqlite3_column_int(st, 0)));
	json_object_object_add(a, "bug_id", json_object_new_int(sqlite3_column_int(st, 1)));
	json_object_object_add(a, "creator", json_object_new_string(db_col_text(st, 2)));
	json_object_object_add(a, "file_name", json_object_new_string(db_col_text(st, 3)));
	json_object_object_add(a, "summary", json_object_new_string(db_col_text(st, 4)));
	json_object_object_add(a, "content_type",
			       json_object_new_string(db_col_text(st, 5)));
	json_object_object_add(a, "is_patch", json_object_new_int(sqlite3_column_int(st, 7)));
	json_object_object_add(a, "is_obsolete",
			       json_object_new_int(sqlite3_column_int(st, 8)));
	json_object_object_add(a, "is_private",
			       json_object_new_int(sqlite3_column_int(st, 9)));
	json_object_object_add(a, "creation_time",
			       sa_time_json(sqlite3_column_int64(st, 10)));
	json_object_object_add(a, "last_change_time",
			       sa_time_json(sqlite3_column_int64(st, 11)));
	json_object_object_add(a, "size", json_object_new_int(len));
	json_object_object_add(a, "flags", json_object_new_array());
	base64_encode(&enc, data ? (const void *)data : "", len);
	json_object_object_add(a, "data", json_object_new_string_len(enc.ptr, enc.len));
	buf_release(&enc);
	sa_filter_fields(r, a);
	return a;
}

void sa_get_bug_attachments(struct sa_req *r, int bug)
{
	struct json_object *o, *bugs, *list;
	bool insider = sa_in_group(&r->user, "admin");
	sqlite3_stmt *st;
	struct sa_bug b;
	char key[16];

	if (sa_bug_check(r, bug, &b))
		return;
	if (!(st = db_stmt(&r->st->db, sql_attach_of_bug))) {
		sa_error(r, 32610, "database error");
		return;
	}
	list = json_object_new_array();
	sqlite3_bind_int(st, 1, bug);
	while (sqlite3_step(st) == SQLITE_ROW)
		if (insider || !sqlite3_column_int(st, 9))
			json_object_array_add(list, attach_json(r, st));
	sqlite3_reset(st);
	bugs = json_object_new_object();
	snprintf(key, sizeof(key), "%d", bug);
	json_object_object_add(bugs, key, list);
	o = json_object_new_object();
	json_object_object_add(o, "bugs", bugs);
	json_object_object_add(o, "attachments", json_object_new_object());
	sa_reply(r, 200, o);
}

void sa_get_attachment(struct sa_req *r, int id)
{
	struct json_object *o, *atts = json_object_new_object(), *a = NULL;
	sqlite3_stmt *st = db_stmt(&r->st->db, sql_attach_get);
	struct sa_bug b;
	int bug = 0;
	char key[16];

	if (!st) {
		json_object_put(atts);
		sa_error(r, 32610, "database error");
		return;
	}
	sqlite3_bind_int(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		bug = sqlite3_column_int(st, 1);
		if (!sqlite3_column_int(st, 9) || sa_in_group(&r->user, "admin"))
			a = attach_json(r, st);
	}
	sqlite3_reset(st);
	if (bug && sa_bug_check(r, bug, &b)) {
		json_object_put(a);
		json_object_put(atts);
		return;
	}
	if (a) {
		snprintf(key, sizeof(key), "%d", id);
		json_object_object_add(atts, key, a);
	}
	o = json_object_new_object();
	json_object_object_add(o, "attachments", atts);
	json_object_object_add(o, "bugs", json_object_new_object());
	sa_reply(r, 200, o);
}

static bool truthy(const char *s)
{
	return s && (!strcmp(s, "1") || !strcmp(s, "true"));
}

/* The bug ids an add or update names: the path's and any "ids". */
static struct json_object *target_ids(struct sa_req *r, int path_id)
{
	struct json_object *ids = sa_param_list(r, "ids", true), *out;
	char s[16];

	snprintf(s, sizeof(s), "%d", path_id);
	out = json_object_new_array();
	json_object_array_add(out, json_object_new_string(s));
	for (size_t i = 0; i < json_object_array_length(ids); i++) {
		const char *v = json_object_get_string(json_object_array_get_idx(ids, i));
		if (strcmp(v, s))
			json_object_array_add(out, json_object_new_string(v));
	}
	json_object_put(ids);
	return out;
}

void sa_add_attachment(struct sa_req *r, int bug)
{
	struct db *db = &r->st->db;
	const char *data = sa_param(r, "data"), *summary = sa_param(r, "summary");
	const char *file_name = sa_param(r, "file_name");
	const char *type = sa_param(r, "content_type");
	const char *comment = sa_param(r, "comment");
	bool is_patch = truthy(sa_param(r, "is_patch"));
	bool is_private = truthy(sa_param(r, "is_private"));
	struct json_object *ids = target_ids(r, bug), *out = NULL, *o;
	struct buf raw = BUF_INIT;
	struct sa_bug b;
	int id;

	if (sa_require_login(r))
		goto out;
	for (size_t i = 0; i < json_object_array_length(ids); i++) {
		int bid = sa_bug_id(r, json_object_get_string(json_object_array_get_idx(ids, i)));
		if (bid < 0 || sa_bug_check(r, bid, &b))
			goto out;
	}
	if (!data || !*data) {
		sa_error(r, 50, "The function requires a data argument, and that "
			 "argument was not set.");
		goto out;
	}
	if (!summary || !*summary) {
		sa_error(r, 604, "You must enter a description for the attachment.");
		goto out;
	}
	if (!file_name || !*file_name) {
		sa_error(r, 50, "The function requires a file_name argument, and that "
			 "argument was not set.");
		goto out;
	}
	if (base64_decode(&raw, data, strlen(data))) {
		sa_error(r, 600, "The data you sent is not valid base64.");
		goto out;
	}
	if (!raw.len) {
		sa_error(r, 606, "The file you are trying to attach is empty, does not "
			 "exist, or you don't have permission to read it.");
		goto out;
	}
	if (!type || !*type)
		type = is_patch ? "text/plain" : "application/octet-stream";
	if (is_patch)
		type = "text/plain";
	out = json_object_new_array();
	if (db_begin(db))
		goto dbfail;
	for (size_t i = 0; i < json_object_array_length(ids); i++) {
		int bid = json_object_get_int(json_object_array_get_idx(ids, i));
		if (sa_attach_insert(db, bid, r->user.id, file_name, summary, type,
				     raw.ptr, raw.len, is_patch, false, is_private,
				     comment, r->now, &id))
			goto dbfail;
		json_object_array_add(out, json_object_new_int(id));
	}
	if (db_commit(db))
		goto dbfail;
	o = json_object_new_object();
	json_object_object_add(o, "ids", out);
	out = NULL;
	sa_reply(r, 201, o);
	goto out;
dbfail:
	db_rollback(db);
	sa_error(r, 32610, "The stand-in's database failed: %s", db_errmsg(db));
out:
	json_object_put(out);
	json_object_put(ids);
	buf_release(&raw);
}

struct attach_row {
	int id, bug, creator;
	char *text[3];		/* file_name, summary, content_type; owned */
	int flags[3];		/* is_patch, is_obsolete, is_private */
};

static void attach_row_release(struct attach_row *a)
{
	for (int i = 0; i < 3; i++)
		free(a->text[i]);
	memset(a, 0, sizeof(*a));
}

static int attach_load(struct db *db, int id, struct attach_row *a)
{
	sqlite3_stmt *st = db_stmt(db, sql_attach_get);
	int ret = -1;

	attach_row_release(a);
	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		a->id = id;
		a->bug = sqlite3_column_int(st, 1);
		for (int i = 0; i < 3; i++)
			a->text[i] = xstrdup(db_col_text(st, 3 + i));
		for (int i = 0; i < 3; i++)
			a->flags[i] = sqlite3_column_int(st, 7 + i);
		a->creator = sqlite3_column_int(st, 12);
		ret = 0;
	}
	sqlite3_reset(st);
	return ret;
}

static int change_text(struct sa_req *r, struct attach_row *a, struct json_object *changes,
		       const char *param, const char *hist, char **field)
{
	const char *v = sa_param(r, param);
	struct json_object *c;

	if (!v || !strcmp(v, *field))
		return 0;
	if (sa_history_add(&r->st->db, a->bug, r->user.id, r->now, hist, *field, v, a->id))
		return -1;
	c = json_object_new_object();
	json_object_object_add(c, "removed", json_object_new_string(*field));
	json_object_object_add(c, "added", json_object_new_string(v));
	json_object_object_add(changes, param, c);
	free(*field);
	*field = xstrdup(v);
	return 0;
}

static int change_flag(struct sa_req *r, struct attach_row *a, struct json_object *changes,
		       const char *param, const char *hist, int *flag)
{
	const char *v = sa_param(r, param);
	struct json_object *c;
	int nv;

	if (!v)
		return 0;
	nv = truthy(v);
	if (nv == *flag)
		return 0;
	if (sa_history_add(&r->st->db, a->bug, r->user.id, r->now, hist,
			   *flag ? "1" : "0", nv ? "1" : "0", a->id))
		return -1;
	c = json_object_new_object();
	json_object_object_add(c, "removed", json_object_new_string(*flag ? "1" : "0"));
	json_object_object_add(c, "added", json_object_new_string(nv ? "1" : "0"));
	json_object_object_add(changes, param, c);
	*flag = nv;
	return 0;
}

/* Apply the changes to one attachment; -1 on a database error. */
static int update_one(struct sa_req *r, struct attach_row *a, struct json_object *changes)
{
	struct db *db = &r->st->db;
	sqlite3_stmt *st;
	const char *comment = sa_param(r, "comment");
	int cid;

	if (change_text(r, a, changes, "file_name", "attachments.filename", &a->text[0]) ||
	    change_text(r, a, changes, "summary", "attachments.description", &a->text[1]) ||
	    change_text(r, a, changes, "content_type", "attachments.mimetype",
			&a->text[2]) ||
	    change_flag(r, a, changes, "is_patch", "attachments.ispatch", &a->flags[0]) ||
	    change_flag(r, a, changes, "is_obsolete", "attachments.isobsolete",
			&a->flags[1]) ||
	    change_flag(r, a, changes, "is_private", "attachments.isprivate", &a->flags[2]))
		return -1;
	if (comment && *comment &&
	    sa_comment_add(db, a->bug, r->user.id, comment, false, 0, r->now, &cid))
		return -1;
	if (!json_object_object_length(changes))
		return 0;
	if (!(st = db_stmt(db, sql_attach_update)))
		return -1;
	for (int i = 0; i < 3; i++)
		db_bind_text(st, 1 + i, a->text[i]);
	for (int i = 0; i < 3; i++)
		sqlite3_bind_int(st, 4 + i, a->flags[i]);
	sqlite3_bind_int64(st, 7, r->now);
	sqlite3_bind_int(st, 8, a->id);
	if (db_step_done(db, st))
		return -1;
	return sa_bug_touch(db, a->bug, r->now);
}

void sa_update_attachment(struct sa_req *r, int id)
{
	struct db *db = &r->st->db;
	struct json_object *ids = target_ids(r, id), *list = NULL, *o;
	struct attach_row a = { 0 };
	struct sa_bug b;

	if (sa_require_login(r))
		goto out;
	for (size_t i = 0; i < json_object_array_length(ids); i++) {
		int aid = json_object_get_int(json_object_array_get_idx(ids, i));
		if (attach_load(db, aid, &a)) {
			sa_error(r, 32000, "Attachment #%d does not exist.", aid);
			goto out;
		}
		if (sa_bug_check(r, a.bug, &b))
			goto out;
		if (a.creator != r->user.id && !sa_can_edit(&r->user)) {
			sa_error(r, 115, "You tried to change the attachment %d, but only "
				 "its creator or a user with the required permissions "
				 "may change it.", aid);
			goto out;
		}
	}
	if (db_begin(db))
		goto dbfail;
	list = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(ids); i++) {
		struct json_object *e = json_object_new_object(), *changes;
		int aid = json_object_get_int(json_object_array_get_idx(ids, i));

		changes = json_object_new_object();
		json_object_object_add(e, "id", json_object_new_int(aid));
		json_object_object_add(e, "changes", changes);
		json_object_array_add(list, e);
		if (attach_load(db, aid, &a) || update_one(r, &a, changes))
			goto dbfail;
		attach_load(db, aid, &a);
		if (sa_bug_load(db, a.bug, &b) == 0)
			json_object_object_add(e, "last_change_time",
					       sa_time_json(b.last_change_time));
	}
	if (db_commit(db))
		goto dbfail;
	o = json_object_new_object();
	json_object_object_add(o, "attachments", list);
	list = NULL;
	sa_reply(r, 200, o);
	goto out;
dbfail:
	db_rollback(db);
	sa_error(r, 32610, "The stand-in's database failed: %s", db_errmsg(db));
out:
	attach_row_release(&a);
	json_object_put(list);
	json_object_put(ids);
}
