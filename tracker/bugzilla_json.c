/*
 * bugzilla_json: Bugzilla's JSON answers -> struct bz_*.  See bugzilla.h.
 *
 * Every parser is strict about shape and lenient about the variations real
 * servers show: a field that is absent (include_fields) or null reads as
 * "" or 0; a field with the wrong type is an error naming it, such as
 * "bugs[2].id: expected an integer, got string".  Nothing here trusts the
 * body: no assert, no unchecked index, and a json_object is always released
 * by the function that parsed it.
 */
#include "bugzilla.h"
#include "base64.h"
#include "xalloc.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIST_PUSH(l) \
	((l)->n == (l)->alloc ? \
	 ((l)->alloc = (l)->alloc ? 2 * (l)->alloc : 8, \
	  (l)->v = xreallocarray((l)->v, (l)->alloc, sizeof(*(l)->v))) : 0, \
	 memset(&(l)->v[(l)->n], 0, sizeof(*(l)->v)), &(l)->v[(l)->n++])

static const char *type_name(json_object *o)
{
	return o ? json_type_to_name(json_object_get_type(o)) : "null";
}

/* Parse body; NULL with err set when it is not one JSON value. */
static json_object *parse(const char *body, struct buf *err)
{
	struct json_tokener *tok = xnonnull(json_tokener_new());
	size_t len = strlen(body);
	json_object *root;
	enum json_tokener_error jerr;

	root = json_tokener_parse_ex(tok, body, len);
	jerr = json_tokener_get_error(tok);
	if (!root || jerr != json_tokener_success) {
		if (jerr == json_tokener_continue)
			buf_addf(err, "answer is not JSON: it ends early (%zu bytes)", len);
		else
			buf_addf(err, "answer is not JSON: %s at offset %zu",
				 json_tokener_error_desc(jerr), json_tokener_get_parse_end(tok));
		json_object_put(root);
		root = NULL;
	} else {
		size_t end = json_tokener_get_parse_end(tok);

		end += strspn(body + end, " \t\r\n");
		if (end != len) {
			buf_addf(err, "answer is not JSON: extra text at offset %zu", end);
			json_object_put(root);
			root = NULL;
		}
	}
	json_tokener_free(tok);
	return root;
}

static int expect(json_object *o, enum json_type t, const char *what, struct buf *err)
{
	if (o && json_object_is_type(o, t))
		return 0;
	buf_addf(err, "%s: expected %s, got %s", what, json_type_to_name(t), type_name(o));
	return -1;
}

/* Member `key` of o as a fresh string; absent or null -> "". */
static int take_str(json_object *o, const char *key, char **out, const char *where,
		    struct buf *err)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	if (!v || json_object_is_type(v, json_type_null)) {
		*out = xstrdup("");
	} else if (json_object_is_type(v, json_type_string)) {
		*out = xstrdup(json_object_get_string(v));
	} else {
		buf_addf(err, "%s.%s: expected a string, got %s", where, key, type_name(v));
		return -1;
	}
	return 0;
}

/* Member `key` as an integer; absent or null -> 0 unless required. */
static int take_long(json_object *o, const char *key, long *out, bool required,
		     const char *where, struct buf *err)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	*out = 0;
	if (!v || json_object_is_type(v, json_type_null)) {
		if (!required)
			return 0;
		buf_addf(err, "%s.%s: missing", where, key);
		return -1;
	}
	if (!json_object_is_type(v, json_type_int)) {
		buf_addf(err, "%s.%s: expected an integer, got %s", where, key, type_name(v));
		return -1;
	}
	*out = (long)json_object_get_int64(v);
	return 0;
}

/* A flag: true/false, or 0/1 (5.0/5.2 attachments); absent -> false. */
static int take_flag(json_object *o, const char *key, bool *out, const char *where,
		     struct buf *err)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	*out = false;
	if (!v || json_object_is_type(v, json_type_null))
		return 0;
	if (json_object_is_type(v, json_type_boolean)) {
		*out = json_object_get_boolean(v);
		return 0;
	}
	if (json_object_is_type(v, json_type_int)) {
		*out = json_object_get_int64(v) != 0;
		return 0;
	}
	buf_addf(err, "%s.%s: expected a boolean or 0/1, got %s", where, key, type_name(v));
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *bz_words_joined(const char **words, size_t n)
{
	struct buf joined = BUF_INIT;

	qsort(words, n, sizeof(*words), cmp_str);
	for (size_t i = 0; i < n; i++)
		buf_addf(&joined, "%s%s", i ? ", " : "", words[i]);
	return buf_detach(&joined, NULL);
}

/* An array of strings (keywords, groups): ["b", "a"] -> "a, b"; absent or null -> "". */
static int take_words(json_object *o, const char *key, char **out, const char *where,
		      struct buf *err)
{
	json_object *v = NULL;
	const char **words = NULL;
	size_t n;
	int ret = -1;

	json_object_object_get_ex(o, key, &v);
	if (!v || json_object_is_type(v, json_type_null)) {
		*out = xstrdup("");
		return 0;
	}
	if (!json_object_is_type(v, json_type_array)) {
		buf_addf(err, "%s.%s: expected an array, got %s", where, key, type_name(v));
		return -1;
	}
	n = json_object_array_length(v);
	words = xcalloc(n + 1, sizeof(*words));
	for (size_t i = 0; i < n; i++) {
		json_object *w = json_object_array_get_idx(v, i);

		if (!json_object_is_type(w, json_type_string)) {
			buf_addf(err, "%s.%s[%zu]: expected a string, got %s",
				 where, key, i, type_name(w));
			goto out;
		}
		words[i] = json_object_get_string(w);
	}
	*out = bz_words_joined(words, n);
	ret = 0;
out:
	free(words);
	return ret;
}

int bz_parse_error(const char *body, long *code, struct buf *message)
{
	struct buf ignore = BUF_INIT;
	json_object *root = parse(body, &ignore), *v = NULL;
	int ret = -1;

	buf_release(&ignore);
	*code = 0;
	if (!root || !json_object_is_type(root, json_type_object))
		goto out;
	if (!json_object_object_get_ex(root, "error", &v) || !json_object_get_boolean(v))
		goto out;
	if (json_object_object_get_ex(root, "code", &v) && json_object_is_type(v, json_type_int))
		*code = (long)json_object_get_int64(v);
	if (json_object_object_get_ex(root, "message", &v) &&
	    json_object_is_type(v, json_type_string))
		buf_addstr(message, json_object_get_string(v));
	else
		buf_addstr(message, "(no message)");
	ret = 0;
out:
	json_object_put(root);
	return ret;
}

/* root must be an object with a string member `key`. */
static int parse_string_member(const char *body, const char *key, struct buf *out,
			       struct buf *err)
{
	json_object *root = parse(body, err), *v = NULL;
	int ret = -1;

	if (!root)
		return -1;
	if (expect(root, json_type_object, "answer", err))
		goto out;
	json_object_object_get_ex(root, key, &v);
	if (expect(v, json_type_string, key, err))
		goto out;
	buf_addstr(out, json_object_get_string(v));
	ret = 0;
out:
	json_object_put(root);
	return ret;
}

int bz_parse_version(const char *body, struct buf *version, struct buf *err)
{
	return parse_string_member(body, "version", version, err);
}

int bz_parse_time(const char *body, struct buf *db_time, struct buf *err)
{
	return parse_string_member(body, "db_time", db_time, err);
}

int bz_parse_id(const char *body, long *id, struct buf *err)
{
	json_object *root = parse(body, err);
	int ret = -1;

	if (!root)
		return -1;
	if (!expect(root, json_type_object, "answer", err))
		ret = take_long(root, "id", id, true, "answer", err);
	json_object_put(root);
	return ret;
}

static int parse_bug(json_object *o, struct bz_bug *b, const char *where, struct buf *err)
{
	if (expect(o, json_type_object, where, err) ||
	    take_long(o, "id", &b->id, true, where, err) ||
	    take_str(o, "product", &b->product, where, err) ||
	    take_str(o, "component", &b->component, where, err) ||
	    take_str(o, "status", &b->status, where, err) ||
	    take_str(o, "resolution", &b->resolution, where, err) ||
	    take_str(o, "summary", &b->summary, where, err) ||
	    take_str(o, "creator", &b->creator, where, err) ||
	    take_str(o, "assigned_to", &b->assigned_to, where, err) ||
	    take_str(o, "whiteboard", &b->whiteboard, where, err) ||
	    take_str(o, "version", &b->version, where, err) ||
	    take_str(o, "cf_kernel_version", &b->cf_kernel_version, where, err) ||
	    take_str(o, "creation_time", &b->creation_time, where, err) ||
	    take_str(o, "last_change_time", &b->last_change_time, where, err) ||
	    take_words(o, "keywords", &b->keywords, where, err) ||
	    take_words(o, "groups", &b->groups, where, err) ||
	    take_flag(o, "is_open", &b->is_open, where, err))
		return -1;
	if (b->id <= 0) {
		buf_addf(err, "%s.id: %ld is not a bug id", where, b->id);
		return -1;
	}
	return 0;
}

static void bug_free(struct bz_bug *b)
{
	free(b->product); free(b->component); free(b->status); free(b->resolution);
	free(b->summary); free(b->creator); free(b->assigned_to); free(b->whiteboard);
	free(b->version); free(b->cf_kernel_version); free(b->keywords); free(b->groups); free(b->creation_time);
	free(b->last_change_time);
}

void bz_bug_list_release(struct bz_bug_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		bug_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

struct bz_bug *bz_bug_list_push(struct bz_bug_list *l)
{
	return LIST_PUSH(l);
}

struct bz_attachment *bz_attachment_list_push(struct bz_attachment_list *l)
{
	return LIST_PUSH(l);
}

void bz_bug_list_truncate(struct bz_bug_list *l, size_t n)
{
	while (l->n > n)
		bug_free(&l->v[--l->n]);
}

int bz_parse_bugs(const char *body, struct bz_bug_list *out, struct buf *err)
{
	json_object *root = parse(body, err), *bugs = NULL;
	size_t start = out->n;
	int ret = -1;

	if (!root)
		return -1;
	if (expect(root, json_type_object, "answer", err))
		goto out;
	json_object_object_get_ex(root, "bugs", &bugs);
	if (expect(bugs, json_type_array, "bugs", err))
		goto out;
	for (size_t i = 0; i < json_object_array_length(bugs); i++) {
		char where[32];

		snprintf(where, sizeof(where), "bugs[%zu]", i);
		if (parse_bug(json_object_array_get_idx(bugs, i), LIST_PUSH(out), where, err))
			goto out;
	}
	ret = 0;
out:
	if (ret)
		bz_bug_list_truncate(out, start);
	json_object_put(root);
	return ret;
}

static void comment_free(struct bz_comment *c)
{
	free(c->creator); free(c->time); free(c->text);
}

/* Drop the items past n (a parse that failed half-way). */
static void comment_list_truncate(struct bz_comment_list *l, size_t n)
{
	while (l->n > n)
		comment_free(&l->v[--l->n]);
}

void bz_comment_list_release(struct bz_comment_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		comment_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int parse_comment(json_object *o, long bug_id, struct bz_comment *c,
			 const char *where, struct buf *err)
{
	long count;

	if (expect(o, json_type_object, where, err) ||
	    take_long(o, "id", &c->id, true, where, err) ||
	    take_long(o, "bug_id", &c->bug_id, false, where, err) ||
	    take_long(o, "attachment_id", &c->attachment_id, false, where, err) ||
	    take_long(o, "count", &count, false, where, err) ||
	    take_str(o, "creator", &c->creator, where, err) ||
	    take_str(o, "time", &c->time, where, err) ||
	    take_str(o, "text", &c->text, where, err) ||
	    take_flag(o, "is_private", &c->is_private, where, err))
		return -1;
	c->count = (int)count;
	if (!c->bug_id)
		c->bug_id = bug_id;
	if (c->bug_id != bug_id) {
		buf_addf(err, "%s.bug_id: %ld, but bug %ld was asked for", where, c->bug_id, bug_id);
		return -1;
	}
	if (!*c->time) {
		/* some versions only send creation_time */
		free(c->time);
		if (take_str(o, "creation_time", &c->time, where, err))
			return -1;
	}
	return 0;
}

/* {"bugs":{"<id>":X}}: X for bug_id, type-checked. */
static json_object *bug_member(json_object *root, long bug_id, enum json_type t,
			       struct buf *err)
{
	json_object *bugs = NULL, *v = NULL;
	char key[32], where[48];

	if (expect(root, json_type_object, "answer", err))
		return NULL;
	json_object_object_get_ex(root, "bugs", &bugs);
	if (expect(bugs, json_type_object, "bugs", err))
		return NULL;
	snprintf(key, sizeof(key), "%ld", bug_id);
	snprintf(where, sizeof(where), "bugs.%ld", bug_id);
	json_object_object_get_ex(bugs, key, &v);
	if (expect(v, t, where, err))
		return NULL;
	return v;
}

int bz_parse_comments(const char *body, long bug_id, struct bz_comment_list *out,
		      struct buf *err)
{
	json_object *root = parse(body, err), *bug, *list = NULL;
	size_t start = out->n;
	char where[64];
	int ret = -1;

	if (!root)
		return -1;
	bug = bug_member(root, bug_id, json_type_object, err);
	if (!bug)
		goto out;
	json_object_object_get_ex(bug, "comments", &list);
	snprintf(where, sizeof(where), "bugs.%ld.comments", bug_id);
	if (expect(list, json_type_array, where, err))
		goto out;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		snprintf(where, sizeof(where), "bugs.%ld.comments[%zu]", bug_id, i);
		if (parse_comment(json_object_array_get_idx(list, i), bug_id,
				  LIST_PUSH(out), where, err))
			goto out;
	}
	ret = 0;
out:
	if (ret)
		comment_list_truncate(out, start);
	json_object_put(root);
	return ret;
}

static void attachment_free(struct bz_attachment *a)
{
	free(a->file_name); free(a->summary); free(a->content_type); free(a->creator);
	free(a->creation_time); free(a->last_change_time); free(a->data);
}

/* Drop the items past n (a parse that failed half-way). */
static void attachment_list_truncate(struct bz_attachment_list *l, size_t n)
{
	while (l->n > n)
		attachment_free(&l->v[--l->n]);
}

void bz_attachment_list_release(struct bz_attachment_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		attachment_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int parse_attachment(json_object *o, struct bz_attachment *a, const char *where,
			    struct buf *err)
{
	json_object *data = NULL;
	struct buf decoded = BUF_INIT;

	if (expect(o, json_type_object, where, err) ||
	    take_long(o, "id", &a->id, true, where, err) ||
	    take_long(o, "bug_id", &a->bug_id, false, where, err) ||
	    take_long(o, "size", &a->size, false, where, err) ||
	    take_str(o, "file_name", &a->file_name, where, err) ||
	    take_str(o, "summary", &a->summary, where, err) ||
	    take_str(o, "content_type", &a->content_type, where, err) ||
	    take_str(o, "creator", &a->creator, where, err) ||
	    take_str(o, "creation_time", &a->creation_time, where, err) ||
	    take_str(o, "last_change_time", &a->last_change_time, where, err) ||
	    take_flag(o, "is_patch", &a->is_patch, where, err) ||
	    take_flag(o, "is_obsolete", &a->is_obsolete, where, err) ||
	    take_flag(o, "is_private", &a->is_private, where, err))
		return -1;
	json_object_object_get_ex(o, "data", &data);
	if (!data || json_object_is_type(data, json_type_null))
		return 0;
	if (!json_object_is_type(data, json_type_string)) {
		buf_addf(err, "%s.data: expected a base64 string, got %s", where, type_name(data));
		return -1;
	}
	if (base64_decode(&decoded, json_object_get_string(data),
			  json_object_get_string_len(data))) {
		buf_addf(err, "%s.data: not valid base64", where);
		buf_release(&decoded);
		return -1;
	}
	a->has_data = true;
	a->data = (unsigned char *)buf_detach(&decoded, &a->data_len);
	return 0;
}

int bz_parse_attachments(const char *body, long bug_id, struct bz_attachment_list *out,
			 struct buf *err)
{
	json_object *root = parse(body, err), *list;
	size_t start = out->n;
	char where[64];
	int ret = -1;

	if (!root)
		return -1;
	list = bug_member(root, bug_id, json_type_array, err);
	if (!list)
		goto out;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct bz_attachment *a = LIST_PUSH(out);

		snprintf(where, sizeof(where), "bugs.%ld[%zu]", bug_id, i);
		if (parse_attachment(json_object_array_get_idx(list, i), a, where, err))
			goto out;
		if (!a->bug_id)
			a->bug_id = bug_id;
	}
	ret = 0;
out:
	if (ret)
		attachment_list_truncate(out, start);
	json_object_put(root);
	return ret;
}

int bz_parse_attachment_map(const char *body, struct bz_attachment_list *out,
			    struct buf *err)
{
	json_object *root = parse(body, err), *map = NULL;
	size_t start = out->n;
	int ret = -1;

	if (!root)
		return -1;
	if (expect(root, json_type_object, "answer", err))
		goto out;
	json_object_object_get_ex(root, "attachments", &map);
	if (expect(map, json_type_object, "attachments", err))
		goto out;
	json_object_object_foreach(map, key, val) {
		char where[64];

		snprintf(where, sizeof(where), "attachments.%.40s", key);
		if (parse_attachment(val, LIST_PUSH(out), where, err))
			goto out;
	}
	ret = 0;
out:
	if (ret)
		attachment_list_truncate(out, start);
	json_object_put(root);
	return ret;
}

void bz_status_list_release(struct bz_status_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int bz_parse_statuses(const char *body, struct bz_status_list *out, struct buf *err)
{
	json_object *root = parse(body, err), *fields = NULL, *values = NULL;
	int ret = -1;

	if (!root)
		return -1;
	if (expect(root, json_type_object, "answer", err))
		goto out;
	json_object_object_get_ex(root, "fields", &fields);
	if (expect(fields, json_type_array, "fields", err))
		goto out;
	if (json_object_array_length(fields) < 1) {
		buf_addstr(err, "fields: empty");
		goto out;
	}
	json_object_object_get_ex(json_object_array_get_idx(fields, 0), "values", &values);
	if (expect(values, json_type_array, "fields[0].values", err))
		goto out;
	for (size_t i = 0; i < json_object_array_length(values); i++) {
		json_object *v = json_object_array_get_idx(values, i), *name = NULL;
		char where[48];
		bool is_open;

		snprintf(where, sizeof(where), "fields[0].values[%zu]", i);
		if (expect(v, json_type_object, where, err) ||
		    take_flag(v, "is_open", &is_open, where, err))
			goto out;
		json_object_object_get_ex(v, "name", &name);
		/* the pseudo-status null is the workflow's start state */
		if (!name || json_object_is_type(name, json_type_null))
			continue;
		if (!json_object_is_type(name, json_type_string)) {
			buf_addf(err, "%s.name: expected a string, got %s", where, type_name(name));
			goto out;
		}
		struct bz_status *s = LIST_PUSH(out);
		s->name = xstrdup(json_object_get_string(name));
		s->is_open = is_open;
	}
	ret = 0;
out:
	json_object_put(root);
	return ret;
}
