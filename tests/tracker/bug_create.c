/*
 * bug_create: POST /rest/bug, and the bug-row primitives the seeder and
 * the update share (insert a bug, add or remove a keyword or a cc).
 *
 * A new bug is CONFIRMED when its reporter may confirm (editbugs or
 * canconfirm), else UNCONFIRMED, like Bugzilla 5.x; its description is
 * comment 0.  Errors: 106 unknown product, 51 unknown component or keyword,
 * 107 no summary, 504 unknown user, 410 not logged in.
 */
#include "standin.h"

#include <stdio.h>
#include <string.h>

DB_SQL(sql_bug_insert, "INSERT INTO sa_bugs(id, product, component, summary,"
       " status, resolution, whiteboard, version, op_sys, platform, priority,"
       " severity, creator, assigned_to, cf_kernel_version, cf_regression, url,"
       " groups, everconfirmed, creation_time, last_change_time)"
       " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
DB_SQL(sql_keyword_add,
       "INSERT OR IGNORE INTO sa_bug_keywords(bug, keyword) VALUES (?, ?)");
DB_SQL(sql_keyword_del, "DELETE FROM sa_bug_keywords WHERE bug = ? AND keyword = ?");
DB_SQL(sql_cc_add, "INSERT OR IGNORE INTO sa_bug_cc(bug, user) VALUES (?, ?)");
DB_SQL(sql_cc_del, "DELETE FROM sa_bug_cc WHERE bug = ? AND user = ?");

int sa_bug_insert(struct db *db, const struct sa_newbug *nb, int *out_id)
{
	sqlite3_stmt *st = db_stmt(db, sql_bug_insert);

	if (!st)
		return -1;
	if (nb->id)
		sqlite3_bind_int(st, 1, nb->id);
	db_bind_text(st, 2, nb->product);
	db_bind_text(st, 3, nb->component);
	db_bind_text(st, 4, nb->summary);
	db_bind_text(st, 5, nb->status);
	db_bind_text(st, 6, nb->resolution ? nb->resolution : "");
	db_bind_text(st, 7, nb->whiteboard ? nb->whiteboard : "");
	db_bind_text(st, 8, nb->version);
	db_bind_text(st, 9, nb->op_sys);
	db_bind_text(st, 10, nb->platform);
	db_bind_text(st, 11, nb->priority);
	db_bind_text(st, 12, nb->severity);
	sqlite3_bind_int(st, 13, nb->creator);
	sqlite3_bind_int(st, 14, nb->assigned_to);
	db_bind_text(st, 15, nb->cf_kernel_version ? nb->cf_kernel_version : "");
	db_bind_text(st, 16, nb->cf_regression ? nb->cf_regression : "---");
	db_bind_text(st, 17, nb->url ? nb->url : "");
	db_bind_text(st, 18, nb->groups ? nb->groups : "");
	sqlite3_bind_int(st, 19, nb->everconfirmed);
	sqlite3_bind_int64(st, 20, nb->when);
	sqlite3_bind_int64(st, 21, nb->when);
	if (db_step_done(db, st))
		return -1;
	*out_id = (int)db_last_id(db);
	return 0;
}

static int pair(struct db *db, const char *sql, int bug, const char *s, int n)
{
	sqlite3_stmt *st = db_stmt(db, sql);

	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, bug);
	if (s)
		db_bind_text(st, 2, s);
	else
		sqlite3_bind_int(st, 2, n);
	return db_step_done(db, st);
}

int sa_bug_add_keyword(struct db *db, int bug, const char *keyword)
{
	return pair(db, sql_keyword_add, bug, keyword, 0);
}

int sa_bug_add_cc(struct db *db, int bug, int user)
{
	return pair(db, sql_cc_add, bug, NULL, user);
}

int sa_bug_del_keyword(struct db *db, int bug, const char *keyword)
{
	return pair(db, sql_keyword_del, bug, keyword, 0);
}

int sa_bug_del_cc(struct db *db, int bug, int user)
{
	return pair(db, sql_cc_del, bug, NULL, user);
}

/* --- create ----------------------------------------------------------- */

static int create_lists(struct sa_req *r, int id)
{
	struct db *db = &r->st->db;
	struct json_object *kw = sa_param_list(r, "keywords", true);
	struct json_object *cc = sa_param_list(r, "cc", true);
	int ret = -1;

	for (size_t i = 0; i < json_object_array_length(kw); i++) {
		const char *k = json_object_get_string(json_object_array_get_idx(kw, i));
		if (!sa_keyword_exists(db, k)) {
			sa_error(r, 51, "There is no keyword named '%s'. See the list of "
				 "available keywords.", k);
			goto out;
		}
		if (sa_bug_add_keyword(db, id, k))
			goto out;
	}
	for (size_t i = 0; i < json_object_array_length(cc); i++) {
		const char *login = json_object_get_string(json_object_array_get_idx(cc, i));
		struct sa_user u;
		if (sa_user_by_login(db, login, &u)) {
			sa_error(r, 504, "There is no user named '%s'. Either you mis-typed "
				 "the name or that user has not yet registered for a "
				 "Bugzilla account.", login);
			goto out;
		}
		if (sa_bug_add_cc(db, id, u.id))
			goto out;
	}
	ret = 0;
out:
	json_object_put(kw);
	json_object_put(cc);
	return ret;
}

static const char *param_or(struct sa_req *r, const char *name, const char *def)
{
	const char *v = sa_param(r, name);

	return v && *v ? v : def;
}

static int create_check(struct sa_req *r, struct sa_newbug *nb)
{
	struct db *db = &r->st->db;

	if (!nb->product) {
		return sa_error(r, 106, "You must select/enter a product.");
	}
	if (!sa_product_exists(db, nb->product))
		return sa_error(r, 106, "Either the product '%s' does not exist or you "
				"don't have access to it.", nb->product);
	if (!nb->component)
		return sa_error(r, 105, "You must select a component for this bug.");
	if (!sa_component_exists(db, nb->product, nb->component))
		return sa_error(r, 51, "There is no component named '%s' in the '%s' "
				"product.", nb->component, nb->product);
	if (!nb->summary || !*nb->summary)
		return sa_error(r, 107, "You must enter a summary for this bug.");
	if (!sa_status_known(nb->status) || !sa_status_open(nb->status))
		return sa_error(r, 51, "There is no status named '%s'.", nb->status);
	if (strcmp(nb->status, "UNCONFIRMED") && !sa_can_confirm(&r->user))
		return sa_error(r, 123, "You are not allowed to file a new bug with "
				"status %s.", nb->status);
	return 0;
}

void sa_create_bug(struct sa_req *r)
{
	struct db *db = &r->st->db;
	struct json_object *groups = NULL, *o;
	struct sa_newbug nb = { 0 };
	struct buf gcsv = BUF_INIT;
	struct sa_user assignee;
	int id, cid;

	if (sa_require_login(r))
		return;
	nb.product = sa_param(r, "product");
	nb.component = sa_param(r, "component");
	nb.summary = sa_param(r, "summary");
	nb.status = param_or(r, "status", sa_can_confirm(&r->user) ? "CONFIRMED"
								 : "UNCONFIRMED");
	nb.version = param_or(r, "version", "unspecified");
	nb.op_sys = param_or(r, "op_sys", "Linux");
	nb.platform = param_or(r, "platform", "PC");
	nb.priority = param_or(r, "priority", "Normal");
	nb.severity = param_or(r, "severity", "normal");
	nb.whiteboard = param_or(r, "whiteboard", "");
	nb.cf_kernel_version = param_or(r, "cf_kernel_version", "");
	nb.cf_regression = param_or(r, "cf_regression", "---");
	nb.url = param_or(r, "url", "");
	nb.creator = r->user.id;
	nb.everconfirmed = strcmp(nb.status, "UNCONFIRMED") != 0;
	nb.when = r->now;
	if (create_check(r, &nb))
		goto out;
	if (sa_has_param(r, "assigned_to")) {
		if (sa_user_by_login(db, sa_param(r, "assigned_to"), &assignee)) {
			sa_error(r, 504, "There is no user named '%s'.",
				 sa_param(r, "assigned_to"));
			goto out;
		}
		nb.assigned_to = assignee.id;
	} else {
		nb.assigned_to = 1;	/* the components' default assignee: admin */
	}
	groups = sa_param_list(r, "groups", true);
	for (size_t i = 0; i < json_object_array_length(groups); i++)
		buf_addf(&gcsv, "%s%s", i ? "," : "",
			 json_object_get_string(json_object_array_get_idx(groups, i)));
	nb.groups = gcsv.ptr;
	if (db_begin(db))
		goto dbfail;
	if (sa_bug_insert(db, &nb, &id) ||
	    sa_comment_add(db, id, r->user.id, param_or(r, "description", ""), false,
			   0, r->now, &cid))
		goto dbfail;
	if (create_lists(r, id)) {
		db_rollback(db);
		goto out;
	}
	if (db_commit(db))
		goto dbfail;
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int(id));
	sa_reply(r, 200, o);
	goto out;
dbfail:
	db_rollback(db);
	sa_error(r, 32610, "The stand-in's database failed: %s", db_errmsg(db));
out:
	json_object_put(groups);
	buf_release(&gcsv);
}
