/*
 * bug_read: a bug as Bugzilla 5.2 prints it, get, and history.
 *
 * Get (GET /rest/bug/N) errors with 101 (missing) or 102 (private), unlike
 * search (bug_search.c).  include_fields/exclude_fields decide which keys
 * are built at all, so a narrow search of many bugs stays cheap.
 */
#include "standin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DB_SQL(sql_bug_load, "SELECT id, product, component, status, resolution, groups,"
       " creator, assigned_to, everconfirmed, creation_time, last_change_time"
       " FROM sa_bugs WHERE id = ?");
DB_SQL(sql_bug_full, "SELECT summary, whiteboard, version, op_sys, platform,"
       " priority, severity, cf_kernel_version, cf_regression, url"
       " FROM sa_bugs WHERE id = ?");
DB_SQL(sql_bug_keywords,
       "SELECT keyword FROM sa_bug_keywords WHERE bug = ? ORDER BY keyword");
DB_SQL(sql_bug_cc, "SELECT user FROM sa_bug_cc c JOIN sa_users u ON u.id = c.user"
       " WHERE c.bug = ? ORDER BY u.login");
DB_SQL(sql_bug_touch, "UPDATE sa_bugs SET last_change_time = ? WHERE id = ?");
DB_SQL(sql_history_add, "INSERT INTO sa_history(bug, who, time, field, removed,"
       " added, attachment_id) VALUES (?, ?, ?, ?, ?, ?, ?)");
DB_SQL(sql_history_get, "SELECT who, time, field, removed, added, attachment_id"
       " FROM sa_history WHERE bug = ? ORDER BY id");

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

/* A row of sql_bug_load or sql_search (same columns). */
void sa_bug_from_row(sqlite3_stmt *st, struct sa_bug *b)
{
	memset(b, 0, sizeof(*b));
	b->id = sqlite3_column_int(st, 0);
	copy(b->product, sizeof(b->product), db_col_text(st, 1));
	copy(b->component, sizeof(b->component), db_col_text(st, 2));
	copy(b->status, sizeof(b->status), db_col_text(st, 3));
	copy(b->resolution, sizeof(b->resolution), db_col_text(st, 4));
	copy(b->groups, sizeof(b->groups), db_col_text(st, 5));
	b->creator = sqlite3_column_int(st, 6);
	b->assigned_to = sqlite3_column_int(st, 7);
	b->everconfirmed = sqlite3_column_int(st, 8);
	b->creation_time = sqlite3_column_int64(st, 9);
	b->last_change_time = sqlite3_column_int64(st, 10);
}

int sa_bug_load(struct db *db, int id, struct sa_bug *b)
{
	sqlite3_stmt *st = db_stmt(db, sql_bug_load);
	int ret = -1;

	memset(b, 0, sizeof(*b));
	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		sa_bug_from_row(st, b);
		ret = 0;
	}
	sqlite3_reset(st);
	return ret;
}

bool sa_bug_visible(const struct sa_bug *b, const struct sa_user *u)
{
	char groups[sizeof(b->groups)], *save = NULL, *g;

	if (!b->groups[0] || sa_in_group(u, "admin"))
		return true;
	copy(groups, sizeof(groups), b->groups);
	for (g = strtok_r(groups, ",", &save); g; g = strtok_r(NULL, ",", &save))
		if (!sa_in_group(u, g))
			return false;
	return true;
}

int sa_bug_check(struct sa_req *r, int id, struct sa_bug *b)
{
	if (sa_bug_load(&r->st->db, id, b))
		return sa_error(r, 101, "Bug #%d does not exist.", id);
	if (sa_bug_visible(b, &r->user))
		return 0;
	if (r->user.id)
		return sa_error(r, 102, "You are not authorized to access bug #%d.", id);
	return sa_error(r, 102, "You are not authorized to access bug #%d. To see this "
			"bug, you must first log in to an account with the appropriate "
			"permissions.", id);
}

int sa_bug_touch(struct db *db, int id, time_t when)
{
	sqlite3_stmt *st = db_stmt(db, sql_bug_touch);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, when);
	sqlite3_bind_int(st, 2, id);
	return db_step_done(db, st);
}

int sa_history_add(struct db *db, int bug, int who, time_t when, const char *field,
		   const char *removed, const char *added, int attach_id)
{
	sqlite3_stmt *st = db_stmt(db, sql_history_add);

	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, bug);
	sqlite3_bind_int(st, 2, who);
	sqlite3_bind_int64(st, 3, when);
	db_bind_text(st, 4, field);
	db_bind_text(st, 5, removed);
	db_bind_text(st, 6, added);
	if (attach_id)
		sqlite3_bind_int(st, 7, attach_id);
	return db_step_done(db, st);
}

static struct json_object *empty_array(void)
{
	return json_object_new_array();
}

static void add_str(struct json_object *o, const char *key, const char *val)
{
	json_object_object_add(o, key, json_object_new_string(val));
}

static void add_people(struct sa_req *r, struct json_object *o, const struct sa_bug *b)
{
	struct db *db = &r->st->db;
	struct json_object *cc = json_object_new_array();
	struct json_object *cc_detail = json_object_new_array();
	struct sa_user u;
	sqlite3_stmt *st;

	if ((sa_field_wanted(r, "creator") || sa_field_wanted(r, "creator_detail")) &&
	    sa_user_by_id(db, b->creator, &u) == 0) {
		add_str(o, "creator", u.login);
		json_object_object_add(o, "creator_detail", sa_user_detail(&u));
	}
	if ((sa_field_wanted(r, "assigned_to") ||
	     sa_field_wanted(r, "assigned_to_detail")) &&
	    sa_user_by_id(db, b->assigned_to, &u) == 0) {
		add_str(o, "assigned_to", u.login);
		json_object_object_add(o, "assigned_to_detail", sa_user_detail(&u));
	}
	if ((sa_field_wanted(r, "cc") || sa_field_wanted(r, "cc_detail")) &&
	    (st = db_stmt(db, sql_bug_cc))) {
		sqlite3_bind_int(st, 1, b->id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			int id = sqlite3_column_int(st, 0);
			/* the user look-up uses another statement; st stays valid */
			if (sa_user_by_id(db, id, &u) == 0) {
				json_object_array_add(cc, json_object_new_string(u.login));
				json_object_array_add(cc_detail, sa_user_detail(&u));
			}
		}
		sqlite3_reset(st);
	}
	json_object_object_add(o, "cc", cc);
	json_object_object_add(o, "cc_detail", cc_detail);
}

static struct json_object *groups_json(const char *csv)
{
	struct json_object *a = json_object_new_array();
	const char *p = csv;

	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len)
			json_object_array_add(a, json_object_new_string_len(p, len));
		p += len + (comma != NULL);
	}
	return a;
}


/* Add key only if include_fields/exclude_fields want it (saves the work). */
#define ADD(key, expr) do { \
		if (sa_field_wanted(r, key)) \
			json_object_object_add(o, key, expr); \
	} while (0)

/* The full bug hash of Bugzilla 5.2's Bug.get, for r's user. */
struct json_object *sa_bug_json(struct sa_req *r, const struct sa_bug *b)
{
	struct db *db = &r->st->db;
	struct json_object *o = json_object_new_object(), *kw;
	sqlite3_stmt *st = db_stmt(db, sql_bug_full);
	static const char *const cols[] = {
		"summary", "whiteboard", "version", "op_sys", "platform", "priority",
		"severity", "cf_kernel_version", "cf_regression", "url"
	};

	ADD("id", json_object_new_int(b->id));
	ADD("alias", empty_array());
	ADD("product", json_object_new_string(b->product));
	ADD("component", json_object_new_string(b->component));
	ADD("classification", json_object_new_string("Unclassified"));
	ADD("status", json_object_new_string(b->status));
	ADD("resolution", json_object_new_string(b->resolution));
	ADD("is_open", json_object_new_boolean(sa_status_open(b->status)));
	ADD("is_confirmed", json_object_new_boolean(b->everconfirmed));
	ADD("is_creator_accessible", json_object_new_boolean(1));
	ADD("is_cc_accessible", json_object_new_boolean(1));
	ADD("creation_time", sa_time_json(b->creation_time));
	ADD("last_change_time", sa_time_json(b->last_change_time));
	ADD("groups", groups_json(b->groups));
	ADD("dupe_of", NULL);
	ADD("deadline", NULL);
	ADD("qa_contact", json_object_new_string(""));
	ADD("target_milestone", json_object_new_string("---"));
	ADD("see_also", empty_array());
	ADD("blocks", empty_array());
	ADD("depends_on", empty_array());
	ADD("flags", empty_array());
	/* Skip the look-ups a narrow include_fields does not need. */
	if (st && (sa_field_wanted(r, "summary") || sa_field_wanted(r, "whiteboard") ||
		   sa_field_wanted(r, "version") || sa_field_wanted(r, "priority") ||
		   sa_field_wanted(r, "severity") || sa_field_wanted(r, "url") ||
		   sa_field_wanted(r, "op_sys") || sa_field_wanted(r, "platform") ||
		   sa_field_wanted(r, "cf_kernel_version") ||
		   sa_field_wanted(r, "cf_regression"))) {
		sqlite3_bind_int(st, 1, b->id);
		if (sqlite3_step(st) == SQLITE_ROW)
			for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
				if (sa_field_wanted(r, cols[i]))
					add_str(o, cols[i], db_col_text(st, (int)i));
		sqlite3_reset(st);
	}
	if (sa_field_wanted(r, "keywords") && (st = db_stmt(db, sql_bug_keywords))) {
		kw = json_object_new_array();
		sqlite3_bind_int(st, 1, b->id);
		while (sqlite3_step(st) == SQLITE_ROW)
			json_object_array_add(kw, json_object_new_string(db_col_text(st, 0)));
		sqlite3_reset(st);
		json_object_object_add(o, "keywords", kw);
	}
	add_people(r, o, b);
	if (r->user.id) {
		char tok[64];
		/* Bugzilla's token is a keyed hash; a stable fake does here. */
		snprintf(tok, sizeof(tok), "%lld-standin%dx%lld",
			 (long long)r->now, b->id, (long long)b->last_change_time);
		add_str(o, "update_token", tok);
	}
	sa_filter_fields(r, o);
	return o;
}

void sa_get_bugs(struct sa_req *r, int id)
{
	struct json_object *o, *bugs;
	struct sa_bug b;

	if (sa_bug_check(r, id, &b))
		return;
	o = json_object_new_object();
	bugs = json_object_new_array();
	json_object_array_add(bugs, sa_bug_json(r, &b));
	json_object_object_add(o, "bugs", bugs);
	json_object_object_add(o, "faults", json_object_new_array());
	sa_reply(r, 200, o);
}

void sa_get_history(struct sa_req *r, int id)
{
	struct db *db = &r->st->db;
	struct json_object *o, *bugs, *bug, *hist, *entry = NULL, *changes = NULL;
	sqlite3_stmt *st;
	struct sa_bug b;
	const char *since = sa_param(r, "new_since");
	int last_who = -1;
	time_t last_when = -1, t = 0;

	if (sa_bug_check(r, id, &b))
		return;
	if (since && sa_parse_time(since, &t)) {
		sa_error(r, 56, "'%s' is not a legal date.", since);
		return;
	}
	if (!(st = db_stmt(db, sql_history_get))) {
		sa_error(r, 32610, "database error");
		return;
	}
	hist = json_object_new_array();
	sqlite3_bind_int(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int who = sqlite3_column_int(st, 0);
		time_t when = sqlite3_column_int64(st, 1);
		struct json_object *c;

		if (since && when <= t)
			continue;
		c = json_object_new_object();

		/* Bugzilla groups the changes one user made in one second. */
		if (!entry || who != last_who || when != last_when) {
			struct sa_user u = { 0 };
			sa_user_by_id(db, who, &u);
			entry = json_object_new_object();
			changes = json_object_new_array();
			json_object_object_add(entry, "who", json_object_new_string(u.login));
			json_object_object_add(entry, "when", sa_time_json(when));
			json_object_object_add(entry, "changes", changes);
			json_object_array_add(hist, entry);
			last_who = who;
			last_when = when;
		}
		json_object_object_add(c, "field_name",
				       json_object_new_string(db_col_text(st, 2)));
		json_object_object_add(c, "removed", json_object_new_string(db_col_text(st, 3)));
		json_object_object_add(c, "added", json_object_new_string(db_col_text(st, 4)));
		if (sqlite3_column_type(st, 5) != SQLITE_NULL)
			json_object_object_add(c, "attachment_id",
					       json_object_new_int(sqlite3_column_int(st, 5)));
		json_object_array_add(changes, c);
	}
	sqlite3_reset(st);
	bug = json_object_new_object();
	json_object_object_add(bug, "id", json_object_new_int(id));
	json_object_object_add(bug, "alias", json_object_new_array());
	json_object_object_add(bug, "history", hist);
	bugs = json_object_new_array();
	json_object_array_add(bugs, bug);
	o = json_object_new_object();
	json_object_object_add(o, "bugs", bugs);
	sa_reply(r, 200, o);
}
