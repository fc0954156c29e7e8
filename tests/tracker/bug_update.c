/*
 * bug_update: PUT /rest/bug/{id}.
 *
 * The workflow is Bugzilla 5.x's default for new installs (statuses
 * UNCONFIRMED, CONFIRMED, IN_PROGRESS, RESOLVED, VERIFIED), with its error
 * codes: 51 unknown status or keyword, 121 RESOLVED without a resolution,
 * 122 a resolution on an open bug, 123 a transition that is not allowed,
 * 115 a field the user may not change.  An update of several bugs is one
 * transaction: any error leaves every bug as it was.  `changes` values are
 * strings; keyword lists are sorted and joined with ", ".  groups {add,
 * remove} makes a bug private or public again, by a member of the group
 * (or admin): else 120, as 5.2's group_restriction_not_allowed (not among
 * the recordings; the message is 5.2's template's).
 */
#include "standin.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DB_SQL(sql_keywords_of, "SELECT keyword FROM sa_bug_keywords WHERE bug = ?");
DB_SQL(sql_cc_has, "SELECT 1 FROM sa_bug_cc WHERE bug = ? AND user = ?");
DB_SQL(sql_groups_save, "UPDATE sa_bugs SET groups = ? WHERE id = ?");

/* The fixture's bug groups (tests/data/tracker-seed.json): the rest are user groups. */
static const char *const bug_groups[] = { "kernel-security" };
DB_SQL(sql_row_load, "SELECT product, component, summary, status, resolution,"
       " whiteboard, version, op_sys, platform, priority, severity,"
       " cf_kernel_version, cf_regression, url, everconfirmed"
       " FROM sa_bugs WHERE id = ?");
DB_SQL(sql_row_save, "UPDATE sa_bugs SET product = ?, component = ?, summary = ?,"
       " status = ?, resolution = ?, whiteboard = ?, version = ?, op_sys = ?,"
       " platform = ?, priority = ?, severity = ?, cf_kernel_version = ?,"
       " cf_regression = ?, url = ?, everconfirmed = ?, last_change_time = ?"
       " WHERE id = ?");

/* The editable text columns, in sql_row_load order. */
enum { F_PRODUCT, F_COMPONENT, F_SUMMARY, F_STATUS, F_RESOLUTION, F_WHITEBOARD,
       F_VERSION, F_OP_SYS, F_PLATFORM, F_PRIORITY, F_SEVERITY, F_KVER, F_REGR,
       F_URL, NFIELDS };

static const struct {
	const char *name;	/* parameter, `changes` key and history field */
	const char *display;	/* as Bugzilla names it in messages */
} fields[NFIELDS] = {
	{ "product", "Product" }, { "component", "Component" },
	{ "summary", "Summary" }, { "status", "Status" },
	{ "resolution", "Resolution" }, { "whiteboard", "Whiteboard" },
	{ "version", "Version" }, { "op_sys", "OS" }, { "platform", "Hardware" },
	{ "priority", "Priority" }, { "severity", "Severity" },
	{ "cf_kernel_version", "Kernel Version" }, { "cf_regression", "Regression" },
	{ "url", "URL" },
};

/* --- update ----------------------------------------------------------- */

struct bugrow {
	char *val[NFIELDS];
	int everconfirmed;
};

static void row_release(struct bugrow *row)
{
	for (int i = 0; i < NFIELDS; i++)
		free(row->val[i]);
	memset(row, 0, sizeof(*row));
}

static int row_load(struct db *db, int id, struct bugrow *row)
{
	sqlite3_stmt *st = db_stmt(db, sql_row_load);
	int ret = -1;

	memset(row, 0, sizeof(*row));
	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < NFIELDS; i++)
			row->val[i] = xstrdup(db_col_text(st, i));
		row->everconfirmed = sqlite3_column_int(st, NFIELDS);
		ret = 0;
	}
	sqlite3_reset(st);
	return ret;
}

static int row_save(struct db *db, int id, const struct bugrow *row, time_t when)
{
	sqlite3_stmt *st = db_stmt(db, sql_row_save);

	if (!st)
		return -1;
	for (int i = 0; i < NFIELDS; i++)
		db_bind_text(st, i + 1, row->val[i]);
	sqlite3_bind_int(st, NFIELDS + 1, row->everconfirmed);
	sqlite3_bind_int64(st, NFIELDS + 2, when);
	sqlite3_bind_int(st, NFIELDS + 3, id);
	return db_step_done(db, st);
}

struct update {
	struct sa_req *r;
	int bug;
	bool privileged, owner;
	struct json_object *changes;	/* borrowed: the answer's map */
	bool commented;
};

static int record(struct update *u, const char *field, const char *removed,
		  const char *added)
{
	struct json_object *c = json_object_new_object();

	json_object_object_add(c, "removed", json_object_new_string(removed));
	json_object_object_add(c, "added", json_object_new_string(added));
	json_object_object_add(u->changes, field, c);
	return sa_history_add(&u->r->st->db, u->bug, u->r->user.id, u->r->now, field,
			      removed, added, 0);
}

static int set_field(struct update *u, struct bugrow *row, int f, const char *v)
{
	int ret;

	if (!strcmp(row->val[f], v))
		return 0;
	ret = record(u, fields[f].name, row->val[f], v);
	free(row->val[f]);
	row->val[f] = xstrdup(v);
	return ret;
}

static int update_status(struct update *u, struct bugrow *row)
{
	struct sa_req *r = u->r;
	const char *want = sa_param(r, "status");
	const char *res = sa_param(r, "resolution");
	const char *from = row->val[F_STATUS];
	char *to;
	int ret = -1;

	if (want && !sa_status_known(want))
		return sa_error(r, 51, "There is no status named '%s'.", want);
	to = xstrdup(want ? want : from);
	if (strcmp(to, from)) {
		bool allowed = sa_transition_ok(from, to) && (u->privileged || u->owner);
		if (allowed && !u->privileged && !strcmp(from, "UNCONFIRMED") &&
		    sa_status_open(to) && !sa_can_confirm(&r->user))
			allowed = false;
		if (!allowed) {
			sa_error(r, 123, "You are not allowed to change the bug status "
				 "from %s to %s.", from, to);
			goto out;
		}
	}
	if (sa_status_open(to)) {
		if (res && *res) {
			sa_error(r, 122, "You cannot set a resolution for open bugs.");
			goto out;
		}
		res = "";
	} else {
		if (!res || !*res)
			res = sa_status_open(from) ? NULL : row->val[F_RESOLUTION];
		if (!res || !*res) {
			sa_error(r, 121, "A valid resolution is required to mark bugs "
				 "as %s.", to);
			goto out;
		}
		if (!sa_resolution_known(res)) {
			sa_error(r, 51, "There is no Resolution named '%s'.", res);
			goto out;
		}
	}
	if (strcmp(to, "UNCONFIRMED") && sa_status_open(to))
		row->everconfirmed = 1;
	{
		char *res_copy = xstrdup(res);
		ret = set_field(u, row, F_STATUS, to) ||
		      set_field(u, row, F_RESOLUTION, res_copy) ? -1 : 0;
		free(res_copy);
	}
out:
	free(to);
	return ret;
}

static int update_fields(struct update *u, struct bugrow *row)
{
	struct sa_req *r = u->r;

	for (int f = 0; f < NFIELDS; f++) {
		const char *v;
		if (f == F_STATUS || f == F_RESOLUTION)
			continue;
		if (!(v = sa_param(r, fields[f].name)) || !strcmp(v, row->val[f]))
			continue;
		if (!u->privileged && !u->owner)
			return sa_error(r, 115, "You tried to change the %s field from %s "
					"to %s, but only the assignee or reporter of the "
					"bug, or a user with the required permissions may "
					"change that field.", fields[f].display,
					row->val[f], v);
		if (f == F_SUMMARY && !*v)
			return sa_error(r, 107, "You must enter a summary for this bug.");
		if (f == F_PRODUCT && !sa_product_exists(&r->st->db, v))
			return sa_error(r, 106, "Either the product '%s' does not exist or "
					"you don't have access to it.", v);
		if (set_field(u, row, f, v))
			return -1;
	}
	if (!sa_component_exists(&r->st->db, row->val[F_PRODUCT], row->val[F_COMPONENT]))
		return sa_error(r, 51, "There is no component named '%s' in the '%s' "
				"product.", row->val[F_COMPONENT], row->val[F_PRODUCT]);
	return 0;
}

/* {"add":[...],"remove":[...],"set":[...]} or a plain list (= set). */
static struct json_object *op_list(struct sa_req *r, const char *param, const char *op)
{
	struct json_object *v, *sub, *out = json_object_new_array();

	if (!json_object_object_get_ex(r->params, param, &v) || !v)
		return out;
	if (json_object_is_type(v, json_type_object)) {
		if (!json_object_object_get_ex(v, op, &sub) || !sub)
			return out;
		v = sub;
	} else if (strcmp(op, "set")) {
		return out;
	}
	if (json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v); i++)
			json_object_array_add(out, json_object_new_string(
				json_object_get_string(json_object_array_get_idx(v, i))));
	} else {
		json_object_array_add(out, json_object_new_string(json_object_get_string(v)));
	}
	return out;
}

static bool has_op(struct sa_req *r, const char *param, const char *op)
{
	struct json_object *v;

	if (!json_object_object_get_ex(r->params, param, &v) || !v)
		return false;
	if (json_object_is_type(v, json_type_object))
		return json_object_object_get_ex(v, op, NULL);
	return !strcmp(op, "set");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted, joined with ", ", as Bugzilla prints keyword changes. */
static void join_sorted(struct json_object *list, struct buf *out)
{
	size_t n = json_object_array_length(list);
	const char **v = xcalloc(n + 1, sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = json_object_get_string(json_object_array_get_idx(list, i));
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		buf_addf(out, "%s%s", i ? ", " : "", v[i]);
	free(v);
}

static bool list_has(struct json_object *list, const char *s)
{
	for (size_t i = 0; i < json_object_array_length(list); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(list, i)), s))
			return true;
	return false;
}

static int update_keywords(struct update *u)
{
	struct sa_req *r = u->r;
	struct db *db = &r->st->db;
	struct json_object *cur = json_object_new_array(), *want = NULL;
	struct json_object *add = op_list(r, "keywords", "add");
	struct json_object *del = op_list(r, "keywords", "remove");
	struct json_object *set = op_list(r, "keywords", "set");
	struct json_object *added = json_object_new_array();
	struct json_object *removed = json_object_new_array();
	struct json_object *all[] = { add, del, set };
	struct buf a = BUF_INIT, d = BUF_INIT;
	sqlite3_stmt *st = db_stmt(db, sql_keywords_of);
	int ret = -1;

	if (!st)
		goto out;
	sqlite3_bind_int(st, 1, u->bug);
	while (sqlite3_step(st) == SQLITE_ROW)
		json_object_array_add(cur, json_object_new_string(db_col_text(st, 0)));
	sqlite3_reset(st);
	for (int l = 0; l < 3; l++)
		for (size_t i = 0; i < json_object_array_length(all[l]); i++) {
			const char *k = json_object_get_string(
				json_object_array_get_idx(all[l], i));
			if (!sa_keyword_exists(db, k)) {
				sa_error(r, 51, "There is no keyword named '%s'. See the list "
					 "of available keywords.", k);
				goto out;
			}
		}
	want = json_object_new_array();
	{
		struct json_object *base = has_op(r, "keywords", "set") ? set : cur;
		for (size_t i = 0; i < json_object_array_length(base); i++)
			if (!list_has(want, json_object_get_string(
					json_object_array_get_idx(base, i))))
				json_object_array_add(want, json_object_get(
					json_object_array_get_idx(base, i)));
	}
	for (size_t i = 0; i < json_object_array_length(add); i++)
		if (!list_has(want, json_object_get_string(json_object_array_get_idx(add, i))))
			json_object_array_add(want, json_object_get(
				json_object_array_get_idx(add, i)));
	for (size_t i = 0; i < json_object_array_length(cur); i++) {
		const char *k = json_object_get_string(json_object_array_get_idx(cur, i));
		if (!list_has(want, k) || list_has(del, k))
			json_object_array_add(removed, json_object_new_string(k));
	}
	for (size_t i = 0; i < json_object_array_length(want); i++) {
		const char *k = json_object_get_string(json_object_array_get_idx(want, i));
		if (!list_has(cur, k) && !list_has(del, k) && !list_has(added, k))
			json_object_array_add(added, json_object_new_string(k));
	}
	if (!json_object_array_length(added) && !json_object_array_length(removed)) {
		ret = 0;
		goto out;
	}
	if (!u->privileged && !u->owner) {
		join_sorted(cur, &d);
		sa_error(r, 115, "You tried to change the Keywords field from %s to "
			 "the new value, but only the assignee or reporter of the bug, "
			 "or a user with the required permissions may change that field.",
			 d.ptr);
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(added); i++)
		if (sa_bug_add_keyword(db, u->bug, json_object_get_string(
				json_object_array_get_idx(added, i))))
			goto out;
	for (size_t i = 0; i < json_object_array_length(removed); i++)
		if (sa_bug_del_keyword(db, u->bug, json_object_get_string(
				json_object_array_get_idx(removed, i))))
			goto out;
	join_sorted(added, &a);
	join_sorted(removed, &d);
	ret = record(u, "keywords", d.ptr, a.ptr);
out:
	json_object_put(cur);
	json_object_put(want);
	json_object_put(add);
	json_object_put(del);
	json_object_put(set);
	json_object_put(added);
	json_object_put(removed);
	buf_release(&a);
	buf_release(&d);
	return ret;
}

static int update_cc(struct update *u)
{
	struct sa_req *r = u->r;
	struct db *db = &r->st->db;
	struct json_object *lists[2] = { op_list(r, "cc", "add"), op_list(r, "cc", "remove") };
	struct json_object *done[2] = { json_object_new_array(), json_object_new_array() };
	struct buf a = BUF_INIT, d = BUF_INIT;
	int ret = -1;

	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < json_object_array_length(lists[l]); i++) {
			const char *login = json_object_get_string(
				json_object_array_get_idx(lists[l], i));
			sqlite3_stmt *st;
			struct sa_user cc;
			bool has;

			if (sa_user_by_login(db, login, &cc)) {
				sa_error(r, 504, "There is no user named '%s'. Either you "
					 "mis-typed the name or that user has not yet "
					 "registered for a Bugzilla account.", login);
				goto out;
			}
			if (!(st = db_stmt(db, sql_cc_has)))
				goto out;
			sqlite3_bind_int(st, 1, u->bug);
			sqlite3_bind_int(st, 2, cc.id);
			has = sqlite3_step(st) == SQLITE_ROW;
			sqlite3_reset(st);
			if (has == (l == 0))
				continue;
			if ((l == 0 ? sa_bug_add_cc : sa_bug_del_cc)(db, u->bug, cc.id))
				goto out;
			json_object_array_add(done[l], json_object_new_string(login));
		}
	ret = 0;
	if (json_object_array_length(done[0]) || json_object_array_length(done[1])) {
		join_sorted(done[0], &a);
		join_sorted(done[1], &d);
		ret = record(u, "cc", d.ptr, a.ptr);
	}
out:
	for (int l = 0; l < 2; l++) {
		json_object_put(lists[l]);
		json_object_put(done[l]);
	}
	buf_release(&a);
	buf_release(&d);
	return ret;
}

static bool may_use_group(const struct sa_user *u, const char *name)
{
	for (size_t i = 0; i < sizeof(bug_groups) / sizeof(bug_groups[0]); i++)
		if (!strcmp(name, bug_groups[i]))
			return sa_in_group(u, name) || sa_in_group(u, "admin");
	return false;
}

/* The bug's groups after the change, into *now ("a,b" in the store). */
static int change_groups(struct update *u, const struct sa_bug *b, struct json_object *now,
			 struct json_object *done[2])
{
	struct sa_req *r = u->r;
	struct json_object *lists[2] = { op_list(r, "groups", "add"),
					 op_list(r, "groups", "remove") };
	char csv[sizeof(b->groups)], *save = NULL;
	int ret = -1;

	snprintf(csv, sizeof(csv), "%s", b->groups);
	for (char *g = strtok_r(csv, ",", &save); g; g = strtok_r(NULL, ",", &save))
		json_object_array_add(now, json_object_new_string(g));
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < json_object_array_length(lists[l]); i++) {
			const char *g = json_object_get_string(json_object_array_get_idx(lists[l], i));

			if (!may_use_group(&r->user, g)) {
				sa_error(r, 120, "Either the group '%s' does not exist, or you are not"
					 " allowed to restrict bugs to this group in the '%s' product.",
					 g, b->product);
				goto out;
			}
			if (list_has(now, g) == (l == 0))
				continue;
			if (l == 0) {
				json_object_array_add(now, json_object_new_string(g));
			} else {
				for (size_t j = json_object_array_length(now); j-- > 0;)
					if (!strcmp(json_object_get_string(
						json_object_array_get_idx(now, j)), g))
						json_object_array_del_idx(now, j, 1);
			}
			json_object_array_add(done[l], json_object_new_string(g));
		}
	ret = 0;
out:
	json_object_put(lists[0]);
	json_object_put(lists[1]);
	return ret;
}

static int update_groups(struct update *u, const struct sa_bug *b)
{
	struct json_object *now = json_object_new_array();
	struct json_object *done[2] = { json_object_new_array(), json_object_new_array() };
	struct buf a = BUF_INIT, d = BUF_INIT, all = BUF_INIT;
	sqlite3_stmt *st;
	int ret = change_groups(u, b, now, done);

	if (ret || (!json_object_array_length(done[0]) && !json_object_array_length(done[1])))
		goto out;
	ret = -1;
	join_sorted(now, &all);
	for (char *c = all.ptr; (c = strstr(c, ", "));)
		memmove(c + 1, c + 2, strlen(c + 2) + 1);	/* the store's "a,b" */
	if (!(st = db_stmt(&u->r->st->db, sql_groups_save)))
		goto out;
	db_bind_text(st, 1, all.ptr);
	sqlite3_bind_int(st, 2, u->bug);
	if (db_step_done(&u->r->st->db, st))
		goto out;
	join_sorted(done[0], &a);
	join_sorted(done[1], &d);
	ret = record(u, "groups", d.ptr, a.ptr);
out:
	json_object_put(now);
	json_object_put(done[0]);
	json_object_put(done[1]);
	buf_release(&a);
	buf_release(&d);
	buf_release(&all);
	return ret;
}

static int update_comment(struct update *u)
{
	struct sa_req *r = u->r;
	struct json_object *c, *body, *priv;
	const char *text;
	int cid;

	if (!json_object_object_get_ex(r->params, "comment", &c) || !c)
		return 0;
	if (json_object_is_type(c, json_type_object)) {
		if (!json_object_object_get_ex(c, "body", &body) || !body)
			return 0;
		text = json_object_get_string(body);
	} else {
		text = json_object_get_string(c);
	}
	if (!text || !*text)
		return 0;
	if (sa_comment_check(r, text))
		return -1;
	priv = json_object_is_type(c, json_type_object) ?
		json_object_object_get(c, "is_private") : NULL;
	u->commented = true;
	return sa_comment_add(&r->st->db, u->bug, r->user.id, text,
			      priv && json_object_get_boolean(priv), 0, r->now, &cid);
}

static int cmp_json_int(const void *a, const void *b)
{
	int x = json_object_get_int(*(struct json_object *const *)a);
	int y = json_object_get_int(*(struct json_object *const *)b);

	return (x > y) - (x < y);
}

/* Update one bug; adds its entry to list.  -1 with r's reply set. */
static int update_one(struct sa_req *r, int id, struct json_object *list)
{
	struct update u = { .r = r, .bug = id };
	struct json_object *e;
	struct bugrow row;
	struct sa_bug b;
	int ret = -1;

	if (sa_bug_check(r, id, &b))
		return -1;
	if (row_load(&r->st->db, id, &row)) {
		sa_error(r, 101, "Bug #%d does not exist.", id);
		return -1;
	}
	u.privileged = sa_can_edit(&r->user);
	u.owner = r->user.id == b.creator || r->user.id == b.assigned_to;
	u.changes = json_object_new_object();
	e = json_object_new_object();
	json_object_object_add(e, "id", json_object_new_int(id));
	json_object_object_add(e, "alias", json_object_new_array());
	json_object_object_add(e, "changes", u.changes);
	json_object_array_add(list, e);
	if (update_status(&u, &row) || update_fields(&u, &row) ||
	    update_keywords(&u) || update_cc(&u) || update_groups(&u, &b) ||
	    update_comment(&u))
		goto out;
	if (json_object_object_length(u.changes) || u.commented) {
		if (row_save(&r->st->db, id, &row, r->now))
			goto out;
		b.last_change_time = r->now;
	}
	json_object_object_add(e, "last_change_time", sa_time_json(b.last_change_time));
	ret = 0;
out:
	if (ret && !r->reply)
		sa_error(r, 32610, "The stand-in's database failed: %s",
			 db_errmsg(&r->st->db));
	row_release(&row);
	return ret;
}

void sa_update_bug(struct sa_req *r, int id)
{
	struct db *db = &r->st->db;
	struct json_object *ids = NULL, *list = NULL, *o;

	if (sa_require_login(r))
		return;
	/* The path's id and any "ids", each once, in order. */
	ids = json_object_new_array();
	json_object_array_add(ids, json_object_new_int(id));
	{
		struct json_object *more = sa_param_list(r, "ids", true);
		for (size_t i = 0; i < json_object_array_length(more); i++) {
			const char *v = json_object_get_string(json_object_array_get_idx(more, i));
			int bid = sa_bug_id(r, v);
			bool dup = false;
			if (bid < 0) {
				json_object_put(more);
				goto out;
			}
			for (size_t j = 0; j < json_object_array_length(ids); j++)
				dup |= json_object_get_int(json_object_array_get_idx(ids, j)) == bid;
			if (!dup)
				json_object_array_add(ids, json_object_new_int(bid));
		}
		json_object_put(more);
	}
	json_object_array_sort(ids, cmp_json_int);
	if (db_begin(db)) {
		sa_error(r, 32610, "The stand-in's database failed: %s", db_errmsg(db));
		goto out;
	}
	list = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(ids); i++) {
		if (update_one(r, json_object_get_int(json_object_array_get_idx(ids, i)),
			       list)) {
			db_rollback(db);
			goto out;
		}
	}
	if (db_commit(db)) {
		db_rollback(db);
		sa_error(r, 32610, "The stand-in's database failed: %s", db_errmsg(db));
		goto out;
	}
	o = json_object_new_object();
	json_object_object_add(o, "bugs", list);
	list = NULL;
	sa_reply(r, 200, o);
out:
	json_object_put(list);
	json_object_put(ids);
}
