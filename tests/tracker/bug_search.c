/*
 * bug_search: GET /rest/bug?... (Bug.search).
 *
 * A search silently leaves out bugs that do not exist or that the caller may
 * not see (never 101/102, unlike get).  last_change_time is inclusive (>=),
 * like Bugzilla's delta_ts greaterthaneq, so the bug at the cursor comes
 * back again.  offset needs limit (400/50); without limit at most 10000.
 * Results are in bug id order whatever `order` says (order=bug_id is what
 * clients should ask for anyway).
 */
#include "standin.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

DB_SQL(sql_search, "SELECT id, product, component, status, resolution, groups,"
       " creator, assigned_to, everconfirmed, creation_time, last_change_time"
       " FROM sa_bugs WHERE (?1 IS NULL OR last_change_time >= ?1) ORDER BY id");
DB_SQL(sql_bug_text, "SELECT summary, whiteboard FROM sa_bugs WHERE id = ?");

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
	bool has_since;
	time_t since;				/* last_change_time >= */
	long limit, offset;
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
	       (!s->has_since || b->last_change_time >= s->since) &&
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

/* Read and check the search parameters; -1 with the error reply. */
static int search_init(struct sa_req *r, struct search *s)
{
	const char *since = sa_param(r, "last_change_time");
	const char *created = sa_param(r, "creation_time");

	s->ids = merged_list(r, "id", "ids", true);
	s->products = sa_param_list(r, "product", false);
	s->components = sa_param_list(r, "component", false);
	s->statuses = merged_list(r, "status", "bug_status", false);
	s->resolutions = sa_param_list(r, "resolution", false);
	s->summary = sa_param(r, "summary");
	s->whiteboard = sa_param(r, "whiteboard");
	s->creator = user_param(r, "creator");
	if (!s->creator)
		s->creator = user_param(r, "reporter");
	s->assigned_to = user_param(r, "assigned_to");
	s->has_since = since != NULL;
	if (since && sa_parse_time(since, &s->since))
		return sa_error(r, 56, "'%s' is not a legal date.", since);
	if (created && sa_parse_time(created, &s->created))
		return sa_error(r, 56, "'%s' is not a legal date.", created);
	if (!int_param(r, "limit", &s->limit) || !int_param(r, "offset", &s->offset))
		return -1;
	if (sa_has_param(r, "offset") && !sa_has_param(r, "limit"))
		return sa_error(r, 50, "The function Bug.search() requires a limit "
				"argument, and that argument was not set.");
	if (!s->limit || s->limit > SA_MAX_SEARCH)
		s->limit = SA_MAX_SEARCH;
	return 0;
}

static void search_release(struct search *s)
{
	json_object_put(s->ids);
	json_object_put(s->products);
	json_object_put(s->components);
	json_object_put(s->statuses);
	json_object_put(s->resolutions);
}

/* id= given: look each bug up rather than scanning every bug. */
static void search_by_ids(struct sa_req *r, struct search *s, struct json_object *bugs)
{
	long skipped = 0;

	json_object_array_sort(s->ids, cmp_id);
	for (size_t i = 0; i < json_object_array_length(s->ids) &&
	     (long)json_object_array_length(bugs) < s->limit; i++) {
		const char *v = json_object_get_string(json_object_array_get_idx(s->ids, i));
		struct sa_bug b;

		if ((i && !strcmp(v, json_object_get_string(
				json_object_array_get_idx(s->ids, i - 1)))) ||
		    sa_bug_load(&r->st->db, atoi(v), &b) || !search_match(r, s, &b))
			continue;
		if (skipped++ < s->offset)
			continue;
		json_object_array_add(bugs, sa_bug_json(r, &b));
	}
}

/* Scan the bugs changed since the cursor (all without one), in id order. */
static int search_scan(struct sa_req *r, struct search *s, struct json_object *bugs)
{
	sqlite3_stmt *st = db_stmt(&r->st->db, sql_search);
	struct sa_bug *found = NULL;
	size_t nfound = 0, nalloc = 0;
	long skipped = 0;

	if (!st)
		return sa_error(r, 32610, "The stand-in's database failed.");
	if (s->has_since)
		sqlite3_bind_int64(st, 1, s->since);
	/* collect first: the read ends before the look-ups of sa_bug_json */
	while ((long)nfound < s->limit && sqlite3_step(st) == SQLITE_ROW) {
		struct sa_bug b;

		sa_bug_from_row(st, &b);
		if (!search_match(r, s, &b) || skipped++ < s->offset)
			continue;
		if (nfound == nalloc) {
			nalloc = nalloc ? 2 * nalloc : 64;
			found = xrealloc(found, nalloc * sizeof(*found));
		}
		found[nfound++] = b;
	}
	sqlite3_reset(st);
	for (size_t i = 0; i < nfound; i++)
		json_object_array_add(bugs, sa_bug_json(r, &found[i]));
	free(found);
	return 0;
}

void sa_search_bugs(struct sa_req *r)
{
	struct search s = { 0 };
	struct json_object *bugs, *o;

	if (search_init(r, &s))
		goto out;
	bugs = json_object_new_array();
	if (json_object_array_length(s.ids)) {
		search_by_ids(r, &s, bugs);
	} else if (search_scan(r, &s, bugs)) {
		json_object_put(bugs);
		goto out;
	}
	o = json_object_new_object();
	json_object_object_add(o, "bugs", bugs);
	sa_reply(r, 200, o);
out:
	search_release(&s);
}
