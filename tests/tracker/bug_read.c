/*
 * bug_read: a bug as Bugzilla 5.2 prints it, search, get, and history.
 *
 * Search (GET /rest/bug?...) silently leaves out bugs that do not exist or
 * that the caller may not see; get (GET /rest/bug/N) errors with 101 or 102.
 * last_change_time is inclusive (>=), like Bugzilla's delta_ts greaterthaneq.
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
DB_SQL(sql_bug_text, "SELECT summary, whiteboard FROM sa_bugs WHERE id = ?");
DB_SQL(sql_bug_keywords,
       "SELECT keyword FROM sa_bug_keywords WHERE bug = ? ORDER BY keyword");
DB_SQL(sql_bug_cc, "SELECT user FROM sa_bug_cc c JOIN sa_users u ON u.id = c.user"
       " WHERE c.bug = ? ORDER BY u.login");
DB_SQL(sql_bug_touch, "UPDATE sa_bugs SET last_change_time = ? WHERE id = ?");
DB_SQL(sql_history_add, "INSERT INTO sa_history(bug, who, time, field, removed,"
       " added, attachment_id) VALUES (?, ?, ?, ?, ?, ?, ?)");
DB_SQL(sql_history_get, "SELECT who, time, field, removed, added, attachment_id"
       " FROM sa_history WHERE bug = ? ORDER BY id");
DB_SQL(sql_search, "SELECT id, product, component, status, resolution, groups,"
       " creator, assigned_to, everconfirmed, creation_time, last_change_time"
       " FROM sa_bugs WHERE (?1 IS NULL OR last_change_time >= ?1) ORDER BY id");

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

/* A row of sql_bug_load or sql_search (same columns). */
static void bug_from_row(sqlite3_stmt *st, struct sa_bug *b)
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
		bug_from_row(st, b);
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
static struct json_object *bug_json(struct sa_req *r, const struct sa_bug *b)
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
	json_object_array_add(bugs, bug_json(r, &b));
	json_object_object_add(o, "bugs", bugs);
	json_object_object_add(o, "faults", json_object_new_array());
	sa_reply(r, 200, o);
}

static bool in_list(struct json_object *list, const char *s)
{
	size_t n = json_object_array_length(list);

	if (!n)
		return true;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(list, i)), s))
			return true;
	return false;
}

static bool int_param(struct sa_req *r, const char *name, long *out)
{
	const char *s = sa_param(r, name);
	char *end;

	*out = 0;
	if (!s)
		return true;
	*out = strtol(s, &end, 10);
	if (!*s || *end || *out < 0) {
		sa_error(r, 52, "Invalid parameter passed to Bug.search: '%s' is not "
			 "a number.", s);
		return false;
	}
	return true;
}

struct search {
	struct json_object *ids, *products, *components, *statuses, *resolutions;
	const char *summary, *whiteboard;	/* case-insensitive substrings */
	int creator, assigned_to;		/* 0: any; -1: nobody matches */
	time_t created;				/* creation_time >= (0: any) */
};

/* A login parameter as a user id: 0 when absent, -1 when unknown. */
static int user_param(struct sa_req *r, const char *name)
{
	const char *login = sa_param(r, name);
	struct sa_user u;

	if (!login)
		return 0;
	return sa_user_by_login(&r->st->db, login, &u) ? -1 : u.id;
}

static bool text_match(struct db *db, int id, const char *summary,
		       const char *whiteboard)
{
	sqlite3_stmt *st = db_stmt(db, sql_bug_text);
	bool ok = false;

	if (!st)
		return false;
	sqlite3_bind_int(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		ok = (!summary || strcasestr(db_col_text(st, 0), summary)) &&
		     (!whiteboard || strcasestr(db_col_text(st, 1), whiteboard));
	sqlite3_reset(st);
	return ok;
}

static int cmp_id(const void *a, const void *b)
{
	int x = atoi(json_object_get_string(*(struct json_object *const *)a));
	int y = atoi(json_object_get_string(*(struct json_object *const *)b));

	return (x > y) - (x < y);
}

static bool search_match(struct sa_req *r, const struct search *s,
			 const struct sa_bug *b)
{
	/* ids are matched by the caller, which looks them up one by one */
	return sa_bug_visible(b, &r->user) && in_list(s->products, b->product) &&
	       in_list(s->components, b->component) &&
	       in_list(s->statuses, b->status) &&
	       in_list(s->resolutions, b->resolution) &&
	       (!s->creator || s->creator == b->creator) &&
	       (!s->assigned_to || s->assigned_to == b->assigned_to) &&
	       b->creation_time >= s->created &&
	       (!(s->summary || s->whiteboard) ||
		text_match(&r->st->db, b->id, s->summary, s->whiteboard));
}

static struct json_object *merged_list(struct sa_req *r, const char *a, const char *b,
				       bool split)
{
	struct json_object *l = sa_param_list(r, a, split), *m = sa_param_list(r, b, split);

	for (size_t i = 0; i < json_object_array_length(m); i++)
		json_object_array_add(l, json_object_get(json_object_array_get_idx(m, i)));
	json_object_put(m);
	return l;
}

void sa_search_bugs(struct sa_req *r)
{
	struct db *db = &r->st->db;
	struct search s = { 0 };
	struct json_object *bugs = NULL, *o;
	const char *since = sa_param(r, "last_change_time");
	const char *created = sa_param(r, "creation_time");
	sqlite3_stmt *st;
	long limit, offset, skipped = 0;
	time_t t = 0;
	struct sa_bug *found = NULL;
	size_t nfound = 0, nalloc = 0;

	if (since && sa_parse_time(since, &t)) {
		sa_error(r, 56, "'%s' is not a legal date.", since);
		goto out;
	}
	if (!int_param(r, "limit", &limit) || !int_param(r, "offset", &offset))
		goto out;
	if (sa_has_param(r, "offset") && !sa_has_param(r, "limit")) {
		sa_error(r, 50, "The function Bug.search() requires a limit argument, "
			 "and that argument was not set.");
		goto out;
	}
	if (!limit || limit > SA_MAX_SEARCH)
		limit = SA_MAX_SEARCH;
	s.ids = merged_list(r, "id", "ids", true);
	s.products = sa_param_list(r, "product", false);
	s.components = sa_param_list(r, "component", false);
	s.statuses = merged_list(r, "status", "bug_status", false);
	s.resolutions = sa_param_list(r, "resolution", false);
	s.summary = sa_param(r, "summary");
	s.whiteboard = sa_param(r, "whiteboard");
	s.creator = user_param(r, "creator");
	if (!s.creator)
		s.creator = user_param(r, "reporter");
	s.assigned_to = user_param(r, "assigned_to");
	if (created && sa_parse_time(created, &s.created)) {
		sa_error(r, 56, "'%s' is not a legal date.", created);
		goto out;
	}
	bugs = json_object_new_array();
	if (json_object_array_length(s.ids)) {
		/* by id: look each up rather than scanning every bug */
		json_object_array_sort(s.ids, cmp_id);
		for (size_t i = 0; i < json_object_array_length(s.ids) &&
		     (long)json_object_array_length(bugs) < limit; i++) {
			const char *v = json_object_get_string(json_object_array_get_idx(s.ids, i));
			struct sa_bug b;
			if ((i && !strcmp(v, json_object_get_string(
					json_object_array_get_idx(s.ids, i - 1)))) ||
			    sa_bug_load(db, atoi(v), &b) ||
			    (since && b.last_change_time < t) || !search_match(r, &s, &b))
				continue;
			if (skipped++ < offset)
				continue;
			json_object_array_add(bugs, bug_json(r, &b));
		}
	} else {
		if (!(st = db_stmt(db, sql_search))) {
			sa_error(r, 32610, "database error");
			goto out;
		}
		if (since)
			sqlite3_bind_int64(st, 1, t);
		/* bug_json uses other statements, so collect the rows first */
		while (sqlite3_step(st) == SQLITE_ROW) {
			struct sa_bug b;
			bug_from_row(st, &b);
			if (!search_match(r, &s, &b))
				continue;
			if (skipped++ < offset)
				continue;
			if (nfound == nalloc) {
				nalloc = nalloc ? 2 * nalloc : 64;
				found = realloc(found, nalloc * sizeof(*found));
				if (!found)
					abort();
			}
			found[nfound++] = b;
			if ((long)nfound >= limit)
				break;
		}
		sqlite3_reset(st);
		for (size_t i = 0; i < nfound; i++)
			json_object_array_add(bugs, bug_json(r, &found[i]));
	}
	o = json_object_new_object();
	json_object_object_add(o, "bugs", bugs);
	bugs = NULL;
	sa_reply(r, 200, o);
out:
	json_object_put(bugs);
	free(found);
	json_object_put(s.ids);
	json_object_put(s.products);
	json_object_put(s.components);
	json_object_put(s.statuses);
	json_object_put(s.resolutions);
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
