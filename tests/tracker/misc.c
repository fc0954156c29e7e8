/*
 * misc: the small read-only calls: version, time, fields, valid_login, user,
 * and whoami when asked to play 5.1+/BMO.
 */
#include "standin.h"

#include <stdio.h>
#include <string.h>

void sa_get_version(struct sa_req *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "version", json_object_new_string("5.2"));
	sa_reply(r, 200, o);
}

void sa_get_time(struct sa_req *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "db_time", sa_time_json(r->now));
	json_object_object_add(o, "web_time", sa_time_json(r->now));
	json_object_object_add(o, "web_time_utc", sa_time_json(r->now));
	json_object_object_add(o, "tz_name", json_object_new_string("UTC"));
	json_object_object_add(o, "tz_short_name", json_object_new_string("UTC"));
	json_object_object_add(o, "tz_offset", json_object_new_string("+0000"));
	sa_reply(r, 200, o);
}

DB_SQL(sql_keyword_names, "SELECT name FROM sa_keywords ORDER BY name");

/* The answer of GET /rest/field/bug/<name>: one field with its values, in
 * the shape every field of Bugzilla 5.2 has. */
static void reply_field(struct sa_req *r, int id, const char *name, const char *display,
			int type, struct json_object *values)
{
	struct json_object *o = json_object_new_object();
	struct json_object *f = json_object_new_object();
	struct json_object *fields = json_object_new_array();

	json_object_object_add(f, "id", json_object_new_int(id));
	json_object_object_add(f, "name", json_object_new_string(name));
	json_object_object_add(f, "display_name", json_object_new_string(display));
	json_object_object_add(f, "type", json_object_new_int(type));
	json_object_object_add(f, "is_custom", json_object_new_boolean(0));
	json_object_object_add(f, "is_mandatory", json_object_new_boolean(0));
	json_object_object_add(f, "is_on_bug_entry", json_object_new_boolean(0));
	json_object_object_add(f, "visibility_field", NULL);
	json_object_object_add(f, "visibility_values", json_object_new_array());
	json_object_object_add(f, "value_field", NULL);
	json_object_object_add(f, "values", values);
	json_object_array_add(fields, f);
	json_object_object_add(o, "fields", fields);
	sa_reply(r, 200, o);
}

/*
 * The keywords field, as Bugzilla 5.2 lists it: every active keyword as
 * {"name", "description"} (Bugzilla::WebService::Bug::_legal_field_values).
 */
static void keywords_field(struct sa_req *r, bool values_only)
{
	sqlite3_stmt *st = db_stmt(&r->st->db, sql_keyword_names);
	struct json_object *o, *values = json_object_new_array();

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		struct json_object *v = json_object_new_object();

		if (values_only) {
			json_object_array_add(values, json_object_new_string(k));
			json_object_put(v);
			continue;
		}
		json_object_object_add(v, "name", json_object_new_string(k));
		json_object_object_add(v, "description", json_object_new_string(k));
		json_object_array_add(values, v);
	}
	if (st)
		sqlite3_reset(st);
	if (values_only) {
		o = json_object_new_object();
		json_object_object_add(o, "values", values);
		sa_reply(r, 200, o);
		return;
	}
	reply_field(r, 23, "keywords", "Keywords", 8, values);
}

void sa_get_field(struct sa_req *r, const char *name, bool values_only)
{
	bool status = !strcmp(name, "bug_status") || !strcmp(name, "status");
	bool resolution = !strcmp(name, "resolution");
	struct json_object *o, *names;

	if (!strcmp(name, "keywords")) {
		keywords_field(r, values_only);
		return;
	}
	if (!status && !resolution) {
		sa_error(r, 108, "'%s' is not a valid field name.", name);
		return;
	}
	if (values_only) {
		o = json_object_new_object();
		if (resolution) {
			names = sa_resolution_values(true);
		} else {
			names = json_object_new_array();
			sa_status_names(names);
		}
		json_object_object_add(o, "values", names);
		sa_reply(r, 200, o);
		return;
	}
	if (status)
		reply_field(r, 9, "bug_status", "Status", 2, sa_status_values());
	else
		reply_field(r, 10, "resolution", "Resolution", 2, sa_resolution_values(false));
}

void sa_valid_login(struct sa_req *r)
{
	const char *login = sa_param(r, "login");
	struct json_object *o;

	if (!login) {
		sa_error(r, 50, "The function requires a login argument, and that argument"
			 " was not set.");
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "result", json_object_new_boolean(
		r->user.id && !strcmp(login, r->user.login)));
	sa_reply(r, 200, o);
}

static const struct {
	const char *name, *description;
	int id;
} group_info[] = {	/* by name, as Bugzilla lists them */
	{ "admin", "Administrators", 1 },
	{ "bz_canusewhines", "User can configure whine reports for self", 11 },
	{ "canconfirm", "Can confirm a bug or mark it a duplicate", 9 },
	{ "editbugs", "Can edit all bug fields", 8 },
	{ "kernel-security", "Embargoed kernel security bugs", 20 },
};

static struct json_object *user_json(struct sa_req *r, const struct sa_user *u)
{
	struct json_object *o = json_object_new_object(), *groups;

	json_object_object_add(o, "id", json_object_new_int(u->id));
	json_object_object_add(o, "name", json_object_new_string(u->login));
	json_object_object_add(o, "real_name", json_object_new_string(u->real_name));
	if (!r->user.id)
		return o;
	json_object_object_add(o, "email", json_object_new_string(u->login));
	json_object_object_add(o, "can_login", json_object_new_boolean(1));
	if (r->user.id != u->id && !sa_in_group(&r->user, "admin"))
		return o;
	json_object_object_add(o, "saved_searches", json_object_new_array());
	json_object_object_add(o, "saved_reports", json_object_new_array());
	groups = json_object_new_array();
	for (size_t i = 0; i < sizeof(group_info) / sizeof(group_info[0]); i++) {
		struct json_object *g;
		if (!sa_in_group(u, group_info[i].name))
			continue;
		g = json_object_new_object();
		json_object_object_add(g, "id", json_object_new_int(group_info[i].id));
		json_object_object_add(g, "name", json_object_new_string(group_info[i].name));
		json_object_object_add(g, "description",
				       json_object_new_string(group_info[i].description));
		json_object_array_add(groups, g);
	}
	json_object_object_add(o, "groups", groups);
	return o;
}

/*
 * GET /rest/whoami, only with /__control/whoami?on=1: 5.2, which the
 * recordings are of, has no such call (404/32614, recording 33).  The shape
 * is BMO's (Bugzilla/API/V1/User.pm): id, real_name, nick, name (the
 * login), mfa_status, the names of the account's groups; BMO's uuid (an
 * HMAC with the site's secret) is left out.  Not logged in: 410.
 */
void sa_whoami(struct sa_req *r)
{
	struct json_object *o, *groups;
	char nick[sizeof(r->user.login)], *at;

	if (sa_require_login(r))
		return;
	snprintf(nick, sizeof(nick), "%s", r->user.login);
	if ((at = strchr(nick, '@')))
		*at = '\0';
	groups = json_object_new_array();
	for (size_t i = 0; i < sizeof(group_info) / sizeof(group_info[0]); i++)
		if (sa_in_group(&r->user, group_info[i].name))
			json_object_array_add(groups, json_object_new_string(group_info[i].name));
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int(r->user.id));
	json_object_object_add(o, "real_name", json_object_new_string(r->user.real_name));
	json_object_object_add(o, "nick", json_object_new_string(nick));
	json_object_object_add(o, "name", json_object_new_string(r->user.login));
	json_object_object_add(o, "mfa_status", json_object_new_boolean(0));
	json_object_object_add(o, "groups", groups);
	sa_reply(r, 200, o);
}

void sa_get_user(struct sa_req *r)
{
	struct json_object *names = sa_param_list(r, "names", true);
	struct json_object *ids = sa_param_list(r, "ids", true);
	struct json_object *users = json_object_new_array(), *o;
	struct sa_user u;

	for (size_t i = 0; i < json_object_array_length(names); i++) {
		const char *n = json_object_get_string(json_object_array_get_idx(names, i));
		if (sa_user_by_login(&r->st->db, n, &u)) {
			sa_error(r, 51, "There is no user named '%s'. Either you mis-typed "
				 "the name or that user has not yet registered for a "
				 "Bugzilla account.", n);
			goto out;
		}
		json_object_array_add(users, user_json(r, &u));
	}
	for (size_t i = 0; i < json_object_array_length(ids); i++) {
		int id = json_object_get_int(json_object_array_get_idx(ids, i));
		if (!r->user.id) {
			sa_error(r, 505, "Logged-out users cannot use the \"ids\" argument "
				 "to this function to access any user information.");
			goto out;
		}
		if (sa_user_by_id(&r->st->db, id, &u)) {
			sa_error(r, 51, "There is no user with id %d.", id);
			goto out;
		}
		json_object_array_add(users, user_json(r, &u));
	}
	o = json_object_new_object();
	json_object_object_add(o, "users", users);
	users = NULL;
	sa_reply(r, 200, o);
out:
	json_object_put(users);
	json_object_put(names);
	json_object_put(ids);
}
