/*
 * kcidb_validate: check a KCIDB document against what the published I/O
 * schema (v5.3, kcidb-io) requires, without a JSON-Schema engine: the
 * version, the required fields of each object, no properties outside the
 * schema's (additionalProperties is false there), the origin and id
 * patterns, the status enumeration, sha256 patterns, and -- stricter than
 * the schema, as a self-check of our export -- that every build's checkout
 * and every test's build is in the same document.
 */
#include "kcidb.h"

#include <ctype.h>
#include <json.h>
#include <stdbool.h>
#include <string.h>

static const char *const checkout_keys[] = {
	"_timestamp", "id", "origin", "tree_name", "git_repository_url", "git_commit_hash",
	"git_commit_name", "git_commit_tags", "git_commit_message", "git_repository_branch",
	"git_repository_branch_tip", "patchset_files", "patchset_hash", "message_id",
	"comment", "start_time", "origin_builds_finish_time", "origin_tests_finish_time",
	"log_url", "log_excerpt", "valid", "misc", NULL
};
static const char *const build_keys[] = {
	"_timestamp", "checkout_id", "id", "origin", "comment", "start_time", "duration",
	"architecture", "command", "compiler", "input_files", "output_files", "config_name",
	"config_url", "log_url", "log_excerpt", "status", "misc", NULL
};
static const char *const test_keys[] = {
	"_timestamp", "build_id", "id", "origin", "environment", "path", "comment", "log_url",
	"log_excerpt", "status", "number", "start_time", "duration", "input_files",
	"output_files", "misc", NULL
};
static const char *const statuses[] = { "FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP", NULL };

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

/* [a-z0-9_]+ up to end (or up to ':' when id is true, which must follow). */
static bool origin_ok(const char *s, bool id)
{
	const char *p = s;

	while (*p && (islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
		p++;
	if (p == s)
		return false;
	return id ? *p == ':' : *p == '\0';
}

static bool sha256_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0)
		return true;
	if (n != 64)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !(*s >= 'a' && *s <= 'f'))
			return false;
	return true;
}

static const char *str_field(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int fail(struct buf *err, const char *what, int i, const char *why, const char *key)
{
	buf_reset(err);
	buf_addf(err, "%s[%d]: %s '%s'", what, i, why, key);
	return -1;
}

/* Common checks of one object; refs are the ids it must reference (or NULL). */
static int check_object(json_object *o, const char *what, int i, const char *const *keys,
			const char *const *required, struct buf *err)
{
	const char *s;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, what, i, "is not an object", "");
	json_object_object_foreach(o, key, val) {
		if (!in_list(keys, key))
			return fail(err, what, i, "has a property the schema does not allow", key);
		if (json_object_is_type(val, json_type_null))
			return fail(err, what, i, "has null in", key);
		if (json_object_is_type(val, json_type_string) &&
		    strlen(json_object_get_string(val)) != (size_t)json_object_get_string_len(val))
			return fail(err, what, i, "has a NUL character in", key);
	}
	for (; *required; required++)
		if (!str_field(o, *required))
			return fail(err, what, i, "lacks the required string", *required);
	s = str_field(o, "origin");
	if (!origin_ok(s, false))
		return fail(err, what, i, "has a bad origin", s);
	s = str_field(o, "id");
	if (!origin_ok(s, true))
		return fail(err, what, i, "has a bad id", s);
	s = str_field(o, "status");
	if (json_object_object_get_ex(o, "status", NULL) && (!s || !in_list(statuses, s)))
		return fail(err, what, i, "has a status outside the enumeration", s ? s : "");
	return 0;
}

static bool id_in(json_object *arr, const char *id)
{
	size_t n = arr ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *s = str_field(json_object_array_get_idx(arr, i), "id");

		if (s && !strcmp(s, id))
			return true;
	}
	return false;
}

static json_object *array_of(json_object *doc, const char *key, struct buf *err, int *bad)
{
	json_object *a = NULL;

	if (json_object_object_get_ex(doc, key, &a) && !json_object_is_type(a, json_type_array)) {
		buf_reset(err);
		buf_addf(err, "'%s' is not an array", key);
		*bad = 1;
	}
	return a;
}

static int check_version(json_object *doc, struct buf *err)
{
	json_object *v, *major, *minor;

	if (!json_object_object_get_ex(doc, "version", &v) ||
	    !json_object_object_get_ex(v, "major", &major) ||
	    !json_object_object_get_ex(v, "minor", &minor) ||
	    !json_object_is_type(major, json_type_int) || !json_object_is_type(minor, json_type_int)) {
		buf_reset(err);
		buf_addstr(err, "no integer version.major and version.minor");
		return -1;
	}
	if (json_object_get_int(major) != KCIDB_MAJOR || json_object_get_int(minor) < 0) {
		buf_reset(err);
		buf_addf(err, "version %d.%d is not %d.x", json_object_get_int(major),
			 json_object_get_int(minor), KCIDB_MAJOR);
		return -1;
	}
	return 0;
}

static int check_all(json_object *doc, struct buf *err)
{
	static const char *const co_req[] = { "id", "origin", NULL };
	static const char *const b_req[] = { "checkout_id", "id", "origin", NULL };
	static const char *const t_req[] = { "build_id", "id", "origin", NULL };
	int bad = 0;
	json_object *co = array_of(doc, "checkouts", err, &bad);
	json_object *b = array_of(doc, "builds", err, &bad);
	json_object *t = array_of(doc, "tests", err, &bad);

	if (bad || check_version(doc, err))
		return -1;
	for (size_t i = 0; co && i < json_object_array_length(co); i++) {
		json_object *o = json_object_array_get_idx(co, i);
		const char *h;

		if (check_object(o, "checkouts", i, checkout_keys, co_req, err))
			return -1;
		h = str_field(o, "patchset_hash");
		if (h && !sha256_ok(h))
			return fail(err, "checkouts", i, "has a bad patchset_hash", h);
	}
	for (size_t i = 0; b && i < json_object_array_length(b); i++) {
		json_object *o = json_object_array_get_idx(b, i);

		if (check_object(o, "builds", i, build_keys, b_req, err))
			return -1;
		if (!id_in(co, str_field(o, "checkout_id")))
			return fail(err, "builds", i, "names a checkout not in the document",
				    str_field(o, "checkout_id"));
	}
	for (size_t i = 0; t && i < json_object_array_length(t); i++) {
		json_object *o = json_object_array_get_idx(t, i);
		const char *path;

		if (check_object(o, "tests", i, test_keys, t_req, err))
			return -1;
		if (!id_in(b, str_field(o, "build_id")))
			return fail(err, "tests", i, "names a build not in the document",
				    str_field(o, "build_id"));
		path = str_field(o, "path");
		if (path && (path[0] == '.' || strstr(path, "..") ||
			     (*path && path[strlen(path) - 1] == '.')))
			return fail(err, "tests", i, "has an empty path component in", path);
	}
	return 0;
}

int kcidb_validate(const char *json, struct buf *err)
{
	json_tokener *tok = json_tokener_new();
	json_object *doc;
	int ret = -1;

	doc = json_tokener_parse_ex(tok, json, strlen(json));
	if (!doc || json_tokener_get_error(tok) != json_tokener_success) {
		buf_reset(err);
		buf_addstr(err, "not JSON");
	} else if (!json_object_is_type(doc, json_type_object)) {
		buf_reset(err);
		buf_addstr(err, "not a JSON object");
	} else {
		ret = check_all(doc, err);
	}
	json_object_put(doc);
	json_tokener_free(tok);
	return ret;
}
