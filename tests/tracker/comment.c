/*
 * comment: GET and POST /rest/bug/{id}/comment.
 *
 * new_since is strict (creation time > T), as Bugzilla's bug_when > ?.
 * The map of bugs is keyed by the bug id as a string; `count` is the
 * comment's position on its bug (0 is the description).
 */
#include "standin.h"

#include <stdio.h>
#include <string.h>

DB_SQL(sql_comment_add, "INSERT INTO sa_comments(bug, creator, text, is_private,"
       " attachment_id, time) VALUES (?, ?, ?, ?, ?, ?)");
DB_SQL(sql_comments_get, "SELECT c.id, u.login, c.text, c.is_private,"
       " c.attachment_id, c.time FROM sa_comments c"
       " JOIN sa_users u ON u.id = c.creator WHERE c.bug = ? ORDER BY c.id");
/* The same columns, then the bug and the comment's position on it. */
DB_SQL(sql_comment_get, "SELECT c.id, u.login, c.text, c.is_private,"
       " c.attachment_id, c.time, c.bug,"
       " (SELECT COUNT(*) FROM sa_comments p WHERE p.bug = c.bug AND p.id < c.id)"
       " FROM sa_comments c JOIN sa_users u ON u.id = c.creator WHERE c.id = ?");

int sa_comment_add(struct db *db, int bug, int who, const char *text, bool priv,
		   int attach_id, time_t when, int *out_id)
{
	sqlite3_stmt *st = db_stmt(db, sql_comment_add);

	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, bug);
	sqlite3_bind_int(st, 2, who);
	db_bind_text(st, 3, text);
	sqlite3_bind_int(st, 4, priv);
	if (attach_id)
		sqlite3_bind_int(st, 5, attach_id);
	sqlite3_bind_int64(st, 6, when);
	if (db_step_done(db, st))
		return -1;
	*out_id = (int)db_last_id(db);
	return sa_bug_touch(db, bug, when);
}

static struct json_object *comment_json(sqlite3_stmt *st, int bug, int count)
{
	struct json_object *c = json_object_new_object();
	time_t when = sqlite3_column_int64(st, 5);

	json_object_object_add(c, "id", json_object_new_int(sqlite3_column_int(st, 0)));
	json_object_object_add(c, "bug_id", json_object_new_int(bug));
	json_object_object_add(c, "count", json_object_new_int(count));
	json_object_object_add(c, "creator", json_object_new_string(db_col_text(st, 1)));
	json_object_object_add(c, "text", json_object_new_string(db_col_text(st, 2)));
	json_object_object_add(c, "is_private",
			       json_object_new_boolean(sqlite3_column_int(st, 3)));
	json_object_object_add(c, "attachment_id",
			       sqlite3_column_type(st, 4) == SQLITE_NULL ? NULL :
			       json_object_new_int(sqlite3_column_int(st, 4)));
	json_object_object_add(c, "creation_time", sa_time_json(when));
	json_object_object_add(c, "time", sa_time_json(when));
	json_object_object_add(c, "tags", json_object_new_array());
	return c;
}

void sa_get_comments(struct sa_req *r, int bug)
{
	struct db *db = &r->st->db;
	const char *since = sa_param(r, "new_since");
	bool insider = sa_in_group(&r->user, "admin");
	struct json_object *o, *list, *entry, *bugs;
	sqlite3_stmt *st;
	struct sa_bug b;
	time_t t = 0;
	char key[16];
	int count = 0;

	if (sa_bug_check(r, bug, &b))
		return;
	if (since && sa_parse_time(since, &t)) {
		sa_error(r, 56, "'%s' is not a legal date.", since);
		return;
	}
	if (!(st = db_stmt(db, sql_comments_get))) {
		sa_error(r, 32610, "database error");
		return;
	}
	list = json_object_new_array();
	sqlite3_bind_int(st, 1, bug);
	for (; sqlite3_step(st) == SQLITE_ROW; count++) {
		if (since && sqlite3_column_int64(st, 5) <= t)
			continue;
		if (sqlite3_column_int(st, 3) && !insider)
			continue;
		json_object_array_add(list, comment_json(st, bug, count));
	}
	sqlite3_reset(st);
	entry = json_object_new_object();
	json_object_object_add(entry, "comments", list);
	bugs = json_object_new_object();
	snprintf(key, sizeof(key), "%d", bug);
	json_object_object_add(bugs, key, entry);
	o = json_object_new_object();
	json_object_object_add(o, "bugs", bugs);
	json_object_object_add(o, "comments", json_object_new_object());
	sa_reply(r, 200, o);
}

/* GET /rest/bug/comment/{id}: {"comments":{"<id>":{…}},"bugs":{}}. */
void sa_get_comment(struct sa_req *r, int id)
{
	struct db *db = &r->st->db;
	struct json_object *o, *map = json_object_new_object();
	sqlite3_stmt *st = db_stmt(db, sql_comment_get);
	struct sa_bug b;
	char key[16];
	int bug = 0, count = 0, priv = 0;

	if (!st) {
		json_object_put(map);
		sa_error(r, 32610, "database error");
		return;
	}
	sqlite3_bind_int(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		bug = sqlite3_column_int(st, 6);
		count = sqlite3_column_int(st, 7);
		priv = sqlite3_column_int(st, 3);
		if (!priv || sa_in_group(&r->user, "admin")) {
			snprintf(key, sizeof(key), "%d", id);
			json_object_object_add(map, key, comment_json(st, bug, count));
		}
	}
	sqlite3_reset(st);
	if (!bug || (priv && !sa_in_group(&r->user, "admin"))) {
		json_object_put(map);
		sa_error(r, 111, "There is no comment with the id '%d'.", id);
		return;
	}
	if (sa_bug_check(r, bug, &b)) {
		json_object_put(map);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "comments", map);
	json_object_object_add(o, "bugs", json_object_new_object());
	sa_reply(r, 200, o);
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

int sa_comment_check(struct sa_req *r, const char *text)
{
	const char *p = text;

	while (p && *p && strchr(" \t\r\n", *p))
		p++;
	if (!p || !*p)
		return sa_error(r, 50, "The function requires a comment argument, and "
				"that argument was not set.");
	if (utf8_chars(text) > SA_MAX_COMMENT)
		return sa_error(r, 114, "Comments cannot be longer than %d characters.",
				SA_MAX_COMMENT);
	return 0;
}

static bool truthy(const char *s)
{
	return s && (!strcmp(s, "1") || !strcmp(s, "true"));
}

void sa_add_comment(struct sa_req *r, int bug)
{
	struct db *db = &r->st->db;
	const char *text = sa_param(r, "comment");
	bool priv = truthy(sa_param(r, "is_private"));
	struct json_object *o;
	struct sa_bug b;
	int id;

	if (sa_require_login(r) || sa_bug_check(r, bug, &b) ||
	    sa_comment_check(r, text))
		return;
	if (priv && !sa_in_group(&r->user, "admin")) {
		sa_error(r, 113, "Sorry, you are not a member of the insider group "
			 "and cannot mark comments as private.");
		return;
	}
	if (db_begin(db))
		goto fail;
	if (sa_comment_add(db, bug, r->user.id, text, priv, 0, r->now, &id) ||
	    db_commit(db)) {
		db_rollback(db);
		goto fail;
	}
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int(id));
	sa_reply(r, 201, o);
	return;
fail:
	sa_error(r, 32610, "The stand-in's database failed: %s", db_errmsg(db));
}
