/*
 * bugzilla_user: the answers about accounts (bugzilla.h).
 *
 * GET /rest/user -> struct bz_user:
 *
 *   {"users": [{"id": 2, "name": "bot@example.com", "real_name": "...",
 *               "groups": [{"id": 8, "name": "editbugs", "description": ...}]}]}
 *
 * Bugzilla leaves "groups" out where the caller may not see them (an
 * anonymous caller, or another account's groups without editusers or bless
 * rights), so a missing member is "unknown" (NULL), never "no groups".
 *
 * GET /rest/whoami (5.1+, BMO; not in 5.0 or 5.2) -> the key's login:
 *
 *   {"id": 2, "name": "bot@example.com", "real_name": "...", "nick": ...}
 *
 * GET /rest/valid_login?login=L (5.0+) -> {"result": true} when the key is
 * L's, {"result": false} when not.
 */
#include "bugzilla.h"
#include "xalloc.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* [{"name": "b"}, {"name": "a"}] -> "a, b" */
static int group_names(json_object *list, size_t user, char **out, struct buf *err)
{
	size_t n = json_object_array_length(list);
	const char **names = xcalloc(n + 1, sizeof(*names));
	int ret = -1;

	for (size_t i = 0; i < n; i++) {
		json_object *g = json_object_array_get_idx(list, i), *name = NULL;

		if (json_object_is_type(g, json_type_object))
			json_object_object_get_ex(g, "name", &name);
		if (!json_object_is_type(name, json_type_string)) {
			buf_addf(err, "users[%zu].groups[%zu].name: expected a string", user, i);
			goto out;
		}
		names[i] = json_object_get_string(name);
	}
	*out = bz_words_joined(names, n);
	ret = 0;
out:
	free(names);
	return ret;
}

static int parse_user(json_object *o, size_t i, struct bz_user *u, struct buf *err)
{
	json_object *name = NULL, *groups = NULL;

	if (!json_object_is_type(o, json_type_object)) {
		buf_addf(err, "users[%zu]: expected an object", i);
		return -1;
	}
	json_object_object_get_ex(o, "name", &name);
	if (!json_object_is_type(name, json_type_string)) {
		buf_addf(err, "users[%zu].name: expected a string", i);
		return -1;
	}
	u->name = xstrdup(json_object_get_string(name));
	if (!json_object_object_get_ex(o, "groups", &groups) ||
	    json_object_is_type(groups, json_type_null))
		return 0;
	if (!json_object_is_type(groups, json_type_array)) {
		buf_addf(err, "users[%zu].groups: expected an array", i);
		return -1;
	}
	return group_names(groups, i, &u->groups, err);
}

int bz_parse_users(const char *body, struct bz_user_list *out, struct buf *err)
{
	json_object *root = json_tokener_parse(body), *users = NULL;
	size_t start = out->n;
	int ret = -1;

	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "users", &users) ||
	    !json_object_is_type(users, json_type_array)) {
		buf_addstr(err, "users: expected an object with a users array");
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(users); i++) {
		if (out->n == out->alloc) {
			out->alloc = out->alloc ? 2 * out->alloc : 8;
			out->v = xreallocarray(out->v, out->alloc, sizeof(*out->v));
		}
		memset(&out->v[out->n], 0, sizeof(*out->v));
		if (parse_user(json_object_array_get_idx(users, i), i, &out->v[out->n++], err))
			goto out;
	}
	ret = 0;
out:
	if (ret) {
		for (size_t i = start; i < out->n; i++) {
			free(out->v[i].name);
			free(out->v[i].groups);
		}
		out->n = start;
	}
	json_object_put(root);
	return ret;
}

void bz_user_list_release(struct bz_user_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].groups);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int bz_parse_whoami(const char *body, struct buf *login, struct buf *err)
{
	json_object *root = json_tokener_parse(body), *name = NULL;
	int ret = -1;

	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "name", &name) ||
	    !json_object_is_type(name, json_type_string) || !*json_object_get_string(name)) {
		buf_addstr(err, "whoami: expected an object with a login in name");
		goto out;
	}
	buf_addstr(login, json_object_get_string(name));
	ret = 0;
out:
	json_object_put(root);
	return ret;
}

int bz_parse_valid_login(const char *body, bool *yes, struct buf *err)
{
	json_object *root = json_tokener_parse(body), *result = NULL;
	int ret = -1;

	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "result", &result) ||
	    !json_object_is_type(result, json_type_boolean)) {
		buf_addstr(err, "valid_login: expected an object with a boolean result");
		goto out;
	}
	*yes = json_object_get_boolean(result);
	ret = 0;
out:
	json_object_put(root);
	return ret;
}
