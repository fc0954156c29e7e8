/*
 * request: what every REST call shares: parameters, login, errors, routing.
 *
 * Parameters are one JSON object: the JSON (or form) body of a POST/PUT with
 * the query string laid over it, as Bugzilla's REST.pm merges them; so a key
 * in the query string wins over one in the body.  A repeated query key is a
 * list.  Bugzilla 5.0/5.2 do not read the X-BUGZILLA-API-KEY header, so
 * neither do we.
 */
#include "hex.h"
#include "standin.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int sa_error_status(int code)
{
	switch (code) {
	case 51: case 101: case 32614:
		return 404;
	case 102: case 106: case 109: case 110: case 113: case 115: case 120:
	case 300: case 301: case 302: case 303: case 304: case 410: case 504:
	case 505:
		return 401;
	default:
		return 400;
	}
}

int sa_error(struct sa_req *r, int code, const char *fmt, ...)
{
	struct json_object *o = json_object_new_object();
	struct buf msg = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	json_object_object_add(o, "error", json_object_new_boolean(1));
	json_object_object_add(o, "code", json_object_new_int(code));
	json_object_object_add(o, "message", json_object_new_string(msg.ptr));
	json_object_object_add(o, "documentation", json_object_new_string(SA_DOC_URL));
	sa_reply(r, sa_error_status(code), o);
	buf_release(&msg);
	return -1;
}

void sa_reply(struct sa_req *r, int status, struct json_object *obj)
{
	json_object_put(r->reply);
	r->reply = obj;
	r->status = status;
}

static struct json_object *param_obj(struct sa_req *r, const char *name)
{
	struct json_object *v;

	if (!json_object_object_get_ex(r->params, name, &v) || !v)
		return NULL;
	return v;
}

bool sa_has_param(struct sa_req *r, const char *name)
{
	return json_object_object_get_ex(r->params, name, NULL);
}

const char *sa_param(struct sa_req *r, const char *name)
{
	struct json_object *v = param_obj(r, name);

	if (v && json_object_is_type(v, json_type_array))
		v = json_object_array_length(v) ? json_object_array_get_idx(v, 0) : NULL;
	if (!v || json_object_is_type(v, json_type_object))
		return NULL;
	return json_object_get_string(v);
}

static void add_item(struct json_object *list, struct json_object *v, bool split)
{
	const char *s, *comma;

	if (!v || json_object_is_type(v, json_type_object) ||
	    json_object_is_type(v, json_type_array))
		return;
	s = json_object_get_string(v);
	if (!split) {
		json_object_array_add(list, json_object_new_string(s));
		return;
	}
	while (*s) {
		comma = strchr(s, ',');
		if (!comma)
			comma = s + strlen(s);
		if (comma > s)
			json_object_array_add(list,
				json_object_new_string_len(s, comma - s));
		s = *comma ? comma + 1 : comma;
	}
}

struct json_object *sa_param_list(struct sa_req *r, const char *name, bool split)
{
	struct json_object *v = param_obj(r, name), *list = json_object_new_array();

	if (v && json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v); i++)
			add_item(list, json_object_array_get_idx(v, i), split);
	} else {
		add_item(list, v, split);
	}
	return list;
}

static void form_unescape(struct buf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '+') {
			buf_addch(out, ' ');
		} else if (s[i] == '%' && i + 2 < len && hexval(s[i + 1]) >= 0 &&
			   hexval(s[i + 2]) >= 0) {
			buf_addch(out, (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2])));
			i += 2;
		} else {
			buf_addch(out, s[i]);
		}
	}
}

/* application/x-www-form-urlencoded, as CGI.pm would read it. */
static struct json_object *parse_form(const char *body, size_t len)
{
	struct json_object *o = json_object_new_object();
	const char *p = body, *end = body + len;

	while (p < end) {
		const char *amp = memchr(p, '&', end - p), *eq;
		struct buf k = BUF_INIT, v = BUF_INIT;

		if (!amp)
			amp = end;
		eq = memchr(p, '=', amp - p);
		form_unescape(&k, p, (eq ? eq : amp) - p);
		if (eq)
			form_unescape(&v, eq + 1, amp - eq - 1);
		if (k.len)
			json_object_object_add(o, k.ptr, json_object_new_string(v.ptr));
		buf_release(&k);
		buf_release(&v);
		p = amp + 1;
	}
	return o;
}

int sa_parse_body(struct sa_req *r, const char *content_type,
		  const char *body, size_t len)
{
	struct json_object *obj = NULL, *merged;
	struct json_tokener *tok;
	enum json_tokener_error jerr;

	if (strcmp(r->method, "POST") && strcmp(r->method, "PUT"))
		return 0;
	if (!len)
		return 0;
	if (content_type && !strncasecmp(content_type,
					 "application/x-www-form-urlencoded", 33)) {
		obj = parse_form(body, len);
	} else {
		tok = json_tokener_new();
		obj = json_tokener_parse_ex(tok, body, (int)len);
		jerr = json_tokener_get_error(tok);
		if (!obj && jerr == json_tokener_continue)
			jerr = json_tokener_error_parse_eof;
		if (obj && (int)json_tokener_get_parse_end(tok) < (int)len) {
			/* trailing garbage after one JSON value */
			for (size_t i = json_tokener_get_parse_end(tok); i < len; i++)
				if (!strchr(" \t\r\n", body[i])) {
					json_object_put(obj);
					obj = NULL;
					jerr = json_tokener_error_parse_unexpected;
					break;
				}
		}
		if (!obj || !json_object_is_type(obj, json_type_object)) {
			int off = (int)json_tokener_get_parse_end(tok);
			json_tokener_free(tok);
			json_object_put(obj);
			return sa_error(r, 32000, "Could not parse the 'params' argument "
					"as valid JSON. Error: %s, at character offset %d "
					"(before \"(end of string)\") at "
					"Bugzilla/WebService/Server/REST.pm line 384. Value:",
					obj ? "not a JSON object" : json_tokener_error_desc(jerr),
					off);
		}
		json_tokener_free(tok);
	}
	/* The body first, then the query string over it; a key in the query
	 * string wins over both spellings in the body. */
	if (json_object_object_get_ex(r->params, "api_key", NULL) ||
	    json_object_object_get_ex(r->params, "Bugzilla_api_key", NULL)) {
		json_object_object_del(obj, "api_key");
		json_object_object_del(obj, "Bugzilla_api_key");
	}
	merged = obj;
	json_object_object_foreach(r->params, key, val)
		json_object_object_add(merged, key, json_object_get(val));
	json_object_put(r->params);
	r->params = merged;
	return 0;
}

bool sa_in_group(const struct sa_user *u, const char *group)
{
	size_t n = strlen(group);
	const char *p = u->groups;

	while ((p = strstr(p, group))) {
		if ((p == u->groups || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

bool sa_can_edit(const struct sa_user *u)
{
	return u->id && (sa_in_group(u, "editbugs") || sa_in_group(u, "admin"));
}

int sa_authenticate(struct sa_req *r)
{
	const char *key = sa_param(r, "api_key");
	const char *login, *pw;

	if (!key)
		key = sa_param(r, "Bugzilla_api_key");
	if (key) {
		if (sa_user_by_key(&r->st->db, key, &r->user))
			return sa_error(r, 306, "The API key you specified is invalid. "
					"Please check that you typed it correctly.");
		return 0;
	}
	login = sa_param(r, "login");
	pw = sa_param(r, "password");
	if (!login)
		login = sa_param(r, "Bugzilla_login");
	if (!pw)
		pw = sa_param(r, "Bugzilla_password");
	if (login && pw && sa_user_by_password(&r->st->db, login, pw, &r->user))
		return sa_error(r, 300, "The username or password you entered is "
				"not valid.");
	return 0;
}

int sa_require_login(struct sa_req *r)
{
	if (r->user.id)
		return 0;
	return sa_error(r, 410, "You must log in before using this part of Bugzilla.");
}

int sa_bug_id(struct sa_req *r, const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v <= 0 || v > 2000000000) {
		sa_error(r, 100, "'%s' is not a valid bug number nor an alias to a bug.", s);
		return -1;
	}
	return (int)v;
}

bool sa_field_wanted(struct sa_req *r, const char *field)
{
	size_t ninc;
	bool keep;

	if (!r->inc) {
		r->inc = sa_param_list(r, "include_fields", true);
		r->exc = sa_param_list(r, "exclude_fields", true);
	}
	ninc = json_object_array_length(r->inc);
	keep = ninc == 0;
	for (size_t i = 0; i < ninc && !keep; i++) {
		const char *f = json_object_get_string(json_object_array_get_idx(r->inc, i));
		keep = !strcmp(f, field) || !strcmp(f, "_all") || !strcmp(f, "_default");
	}
	for (size_t i = 0; i < json_object_array_length(r->exc) && keep; i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(r->exc, i)), field))
			keep = false;
	return keep;
}

void sa_filter_fields(struct sa_req *r, struct json_object *obj)
{
	struct json_object *drop = json_object_new_array();

	json_object_object_foreach(obj, key, val) {
		(void)val;
		if (!sa_field_wanted(r, key))
			json_object_array_add(drop, json_object_new_string(key));
	}
	for (size_t i = 0; i < json_object_array_length(drop); i++)
		json_object_object_del(obj, json_object_get_string(
			json_object_array_get_idx(drop, i)));
	json_object_put(drop);
}

/* Split path into at most 4 segments; returns the count. */
static int split_path(const char *path, char seg[4][128])
{
	int n = 0;

	while (*path == '/')
		path++;
	while (*path) {
		const char *slash = strchr(path, '/');
		size_t len = slash ? (size_t)(slash - path) : strlen(path);
		if (n == 4 || len >= 128)
			return -1;
		memcpy(seg[n], path, len);
		seg[n][len] = '\0';
		n++;
		path += len;
		while (*path == '/')
			path++;
	}
	return n;
}

static bool is(const char *a, const char *b)
{
	return !strcmp(a, b);
}

/* Route a bug resource; false if nothing matched. */
static bool route_bug(struct sa_req *r, char seg[4][128], int n, bool get,
		      bool post, bool put)
{
	int id;

	if (n == 1 && get) {
		sa_search_bugs(r);
	} else if (n == 1 && post) {
		sa_create_bug(r);
	} else if (n == 3 && is(seg[1], "attachment") && (get || put)) {
		char *end;
		long aid = strtol(seg[2], &end, 10);
		if (*end || !seg[2][0] || aid <= 0) {
			sa_error(r, 100, "Attachment IDs must be integers: '%s'.", seg[2]);
			return true;
		}
		if (get)
			sa_get_attachment(r, (int)aid);
		else
			sa_update_attachment(r, (int)aid);
	} else if (n == 3 && is(seg[1], "comment") && get) {
		char *end;
		long cid = strtol(seg[2], &end, 10);
		if (*end || !seg[2][0] || cid <= 0 || cid > 2000000000)
			sa_error(r, 111, "There is no comment with the id '%s'.", seg[2]);
		else
			sa_get_comment(r, (int)cid);
	} else if (n == 2 && (get || put)) {
		if ((id = sa_bug_id(r, seg[1])) < 0)
			return true;
		if (get)
			sa_get_bugs(r, id);
		else
			sa_update_bug(r, id);
	} else if (n == 3 && (get || post) &&
		   (is(seg[2], "comment") || is(seg[2], "attachment"))) {
		if ((id = sa_bug_id(r, seg[1])) < 0)
			return true;
		if (is(seg[2], "comment"))
			get ? sa_get_comments(r, id) : sa_add_comment(r, id);
		else
			get ? sa_get_bug_attachments(r, id) : sa_add_attachment(r, id);
	} else if (n == 3 && get && is(seg[2], "history")) {
		if ((id = sa_bug_id(r, seg[1])) >= 0)
			sa_get_history(r, id);
	} else {
		return false;
	}
	return true;
}

void sa_dispatch(struct sa_req *r)
{
	char seg[4][128];
	int n = split_path(r->path, seg);
	bool get = is(r->method, "GET"), post = is(r->method, "POST");
	bool put = is(r->method, "PUT"), done = false;

	if (n >= 1 && is(seg[0], "bug")) {
		done = route_bug(r, seg, n, get, post, put);
	} else if (n == 1 && get && is(seg[0], "version")) {
		sa_get_version(r), done = true;
	} else if (n == 1 && get && is(seg[0], "time")) {
		sa_get_time(r), done = true;
	} else if (n == 1 && get && is(seg[0], "valid_login")) {
		sa_valid_login(r), done = true;
	} else if (n == 1 && get && is(seg[0], "user")) {
		sa_get_user(r), done = true;
	} else if (n == 1 && get && is(seg[0], "whoami") && r->st->faults.whoami) {
		sa_whoami(r), done = true;
	} else if ((n == 3 || n == 4) && get && is(seg[0], "field") && is(seg[1], "bug") &&
		   (n == 3 || is(seg[3], "values"))) {
		sa_get_field(r, seg[2], n == 4), done = true;
	}
	if (!done)
		sa_error(r, 32614, "A REST API resource was not found for '%s %s'.",
			 r->method, r->path);
}
