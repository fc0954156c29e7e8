/*
 * bugzilla: the REST calls.  See bugzilla.h for the contract; parsing is in
 * bugzilla_json.c.
 *
 * Every call goes through call_as(): build the URL (api_key in the query of
 * a GET when we have a key, except for public resources), send the header and, for writes, a body with
 * "api_key" in it; then turn the answer into BZ_OK or a typed error whose
 * text names the method and path (never the query, which may hold the key)
 * and quotes the tracker's message.
 */
#include "bugzilla.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"
#include "redact.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

const char *bz_err_name(enum bz_err e)
{
	static const char *const names[] = {
		"ok", "transport", "server error", "not found", "no permission",
		"login required", "invalid", "malformed answer",
	};

	return (unsigned)e < sizeof(names) / sizeof(*names) ? names[e] : "unknown";
}

enum bz_err bz_err_from_code(long code)
{
	switch (code) {
	case 51: case 100: case 101: case 32614:
		return BZ_ERR_NOT_FOUND;
	case 102: case 106: case 109: case 110: case 113: case 115: case 120:
	case 123: case 505:
		return BZ_ERR_NO_PERMISSION;
	case 300: case 301: case 302: case 303: case 304: case 305: case 306:
	case 307: case 410:
		return BZ_ERR_LOGIN;
	default:
		return BZ_ERR_INVALID;
	}
}

int bz_init(struct bz *bz, const struct bz_opts *opts, struct buf *err)
{
	size_t len;

	memset(bz, 0, sizeof(*bz));
	buf_init(&bz->errmsg, 0);
	if (httpc_init(&bz->http, &opts->http, err))
		return -1;
	bz->url = xstrdup(opts->url ? opts->url : "");
	bz->api_key = xstrdup(opts->api_key ? opts->api_key : "");
	len = strlen(bz->url);
	while (len && bz->url[len - 1] == '/')
		bz->url[--len] = '\0';
	/* a URL given with its /rest part still means the base */
	if (len >= 5 && !strcmp(bz->url + len - 5, "/rest"))
		bz->url[len - 5] = '\0';
	return 0;
}

int bz_init_config(struct bz *bz, const volatile sig_atomic_t *stop, struct buf *err)
{
	struct buf key = BUF_INIT;
	struct bz_opts opts = {
		.url = cfg_str("tracker.url"),
		.http = {
			.connect_timeout = cfg_int("tracker.connect_timeout"),
			.timeout = cfg_int("tracker.timeout"),
			.retries = (int)cfg_int("tracker.retries"),
			.backoff_ms = cfg_int("tracker.backoff_ms"),
			.max_response = (size_t)cfg_int("tracker.max_response"),
			.stop = stop,
		},
	};
	int ret = -1;

	if (config_secret(cfg, "tracker.api_key", &key, err))
		goto out;
	opts.api_key = key.ptr;
	ret = bz_init(bz, &opts, err);
out:
	/* scrub our copy of the key; bz keeps its own */
	if (key.alloc)
		memset(key.ptr, 0, key.len);
	buf_release(&key);
	return ret;
}

void bz_release(struct bz *bz)
{
	httpc_release(&bz->http);
	if (bz->api_key)
		memset(bz->api_key, 0, strlen(bz->api_key));
	free(bz->api_key);
	free(bz->url);
	buf_release(&bz->errmsg);
	bz->api_key = bz->url = NULL;
}

unsigned long bz_requests(const struct bz *bz)
{
	return bz->http.requests;
}

static int fail(struct bz *bz, enum bz_err e, const char *method, const char *path,
		const char *fmt, const char *detail)
{
	bz->err = e;
	buf_reset(&bz->errmsg);
	buf_addf(&bz->errmsg, "%s %s: ", method, path);
	buf_addf(&bz->errmsg, fmt, detail);
	redact_buf(&bz->errmsg);
	return -1;
}

/*
 * The answer had no usable JSON: say what it was, so that "this URL is not
 * a Bugzilla" is obvious from the message.
 */
static int fail_not_json(struct bz *bz, const char *method, const char *path,
			 const struct httpc_response *resp, const char *why)
{
	struct buf detail = BUF_INIT;

	buf_addf(&detail, "HTTP %ld", resp->status);
	if (resp->content_type[0])
		buf_addf(&detail, " (%s)", resp->content_type);
	buf_addf(&detail, ", %s", why);
	fail(bz, resp->status >= 500 ? BZ_ERR_SERVER : BZ_ERR_MALFORMED, method, path,
	     "%s", detail.ptr);
	buf_release(&detail);
	return -1;
}

/* JSON body for a write: the caller's object (or {}) plus api_key. */
static char *write_body(const struct bz *bz, const char *json, struct buf *err)
{
	json_object *obj = json ? json_tokener_parse(json) : json_object_new_object();
	char *out = NULL;

	if (!obj || !json_object_is_type(obj, json_type_object)) {
		buf_addstr(err, "the update is not a JSON object");
		goto out;
	}
	if (*bz->api_key)
		json_object_object_add(obj, "api_key", json_object_new_string(bz->api_key));
	out = xstrdup(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
out:
	json_object_put(obj);
	return out;
}

static void reset_outcome(struct bz *bz)
{
	bz->err = BZ_OK;
	bz->code = 0;
	bz->status = 0;
	bz->date = 0;
	bz->fail = HTTPC_FAIL_NONE;
	bz->retry_after = -1;
	buf_reset(&bz->errmsg);
}

/*
 * Classify an answer that came back: a Bugzilla error object, a server
 * failure, something that is not Bugzilla, or a 2xx whose JSON text goes
 * to body.
 */
static int take_answer(struct bz *bz, const char *method, const char *path,
		       const struct httpc_response *resp, struct buf *body)
{
	struct buf msg = BUF_INIT;
	long code;
	int ret = -1;

	bz->status = resp->status;
	bz->date = resp->date;
	bz->retry_after = resp->retry_after;
	if (!bz_parse_error(resp->body.ptr, &code, &msg)) {
		bz->code = code;
		buf_addf(&msg, " (code %ld, HTTP %ld)", code, resp->status);
		fail(bz, resp->status >= 500 ? BZ_ERR_SERVER : bz_err_from_code(code),
		     method, path, "%s", msg.ptr);
	} else if (resp->status >= 500 || resp->status == 429) {
		fail_not_json(bz, method, path, resp, "the tracker failed");
		bz->err = BZ_ERR_SERVER;
	} else if (resp->status < 200 || resp->status > 299) {
		fail_not_json(bz, method, path, resp, "not a Bugzilla error object");
	} else {
		buf_addstr(body, resp->body.ptr);
		ret = 0;
	}
	buf_release(&msg);
	return ret;
}

/* Overwrite, then free: the key was in it. */
static void wipe_buf(struct buf *b)
{
	if (b->alloc)
		memset(b->ptr, 0, b->len);
	buf_release(b);
}

/*
 * One request.  path is "/rest/..." without a query; query is "" or
 * "?a=b..." (built with httpc_query_add).  On success body gets the JSON
 * text of a 2xx answer.
 */
static int call_as(struct bz *bz, bool anon, const char *method, const char *path,
		   struct buf *query, const char *json, struct buf *body)
{
	struct httpc_response resp = HTTPC_RESPONSE_INIT;
	struct buf url = BUF_INIT, err = BUF_INIT, hdr = BUF_INIT, msg = BUF_INIT;
	const char *headers[2] = { NULL, NULL };
	struct httpc_request req = { .method = method, .retry = !strcmp(method, "GET") };
	char *payload = NULL;
	int ret = -1;

	reset_outcome(bz);
	buf_addf(&url, "%s%s%s", bz->url, path, query ? query->ptr : "");
	if (*bz->api_key && !anon) {
		buf_addf(&hdr, "X-BUGZILLA-API-KEY: %s", bz->api_key);
		headers[0] = hdr.ptr;
		if (req.retry)
			httpc_query_add(&url, "api_key", bz->api_key);
	}
	req.url = url.ptr;
	req.headers = headers;
	if (!req.retry) {
		payload = write_body(bz, json, &err);
		if (!payload) {
			fail(bz, BZ_ERR_INVALID, method, path, "%s", err.ptr);
			goto out;
		}
		req.body = payload;
		req.body_len = strlen(payload);
	}
	log_debug("bugzilla: %s %s", method, redact_url(&msg, url.ptr));
	if (httpc_do(&bz->http, &req, &resp, &err)) {
		bz->fail = resp.fail;
		fail(bz, BZ_ERR_TRANSPORT, method, path, "%s", err.ptr);
		goto out;
	}
	ret = take_answer(bz, method, path, &resp, body);
out:
	if (payload) {
		memset(payload, 0, strlen(payload));
		free(payload);
	}
	wipe_buf(&hdr);
	wipe_buf(&url);
	buf_release(&err);
	buf_release(&msg);
	httpc_response_release(&resp);
	return ret;
}

static int call(struct bz *bz, const char *method, const char *path, struct buf *query,
		const char *json, struct buf *body)
{
	return call_as(bz, false, method, path, query, json, body);
}

/*
 * Public resources (version, time, fields) go without credentials: the
 * version check comes first, so a URL that turns out not to be a Bugzilla
 * never sees the key (in its access log, say).
 */
static int call_anon(struct bz *bz, const char *path, struct buf *body)
{
	return call_as(bz, true, "GET", path, NULL, NULL, body);
}

/* A parser failed on a 2xx answer: a malformed-answer error naming the field. */
static int bad_answer(struct bz *bz, const char *method, const char *path, struct buf *err)
{
	fail(bz, BZ_ERR_MALFORMED, method, path, "%s", err->ptr);
	buf_release(err);
	return -1;
}

/* rc, a parser's result on the 2xx answer of GET path: 0, or bad_answer(). */
static int parsed(struct bz *bz, const char *path, int rc, struct buf *err)
{
	return rc ? bad_answer(bz, "GET", path, err) : 0;
}

int bz_version(struct bz *bz, struct buf *version)
{
	struct buf body = BUF_INIT, err = BUF_INIT;
	int ret = -1;

	if (call_anon(bz, "/rest/version", &body)) {
		/* say plainly what the usual cause is */
		struct buf msg = BUF_INIT;

		buf_addf(&msg, "%s; is '%s' a Bugzilla 5 base URL?", bz->errmsg.ptr, bz->url);
		buf_reset(&bz->errmsg);
		buf_addstr(&bz->errmsg, msg.ptr);
		redact_buf(&bz->errmsg);
		buf_release(&msg);
		goto out;
	}
	if (bz_parse_version(body.ptr, version, &err)) {
		buf_addf(&err, "; is '%s' a Bugzilla 5 base URL?", bz->url);
		bad_answer(bz, "GET", "/rest/version", &err);
		goto out;
	}
	ret = 0;
out:
	buf_release(&body);
	buf_release(&err);
	return ret;
}

int bz_time(struct bz *bz, struct buf *db_time)
{
	struct buf body = BUF_INIT, err = BUF_INIT;
	int ret = call_anon(bz, "/rest/time", &body);

	if (!ret)
		ret = parsed(bz, "/rest/time", bz_parse_time(body.ptr, db_time, &err), &err);
	buf_release(&body);
	buf_release(&err);
	return ret;
}

static void query_common(struct buf *q, const struct bz_query *sq)
{
	if (sq->nids) {
		struct buf ids = BUF_INIT;

		for (size_t i = 0; i < sq->nids; i++)
			buf_addf(&ids, "%s%ld", i ? "," : "", sq->ids[i]);
		httpc_query_add(q, "id", ids.ptr);
		buf_release(&ids);
	}
	if (sq->product && *sq->product)
		httpc_query_add(q, "product", sq->product);
	if (sq->component && *sq->component)
		httpc_query_add(q, "component", sq->component);
	for (int i = 0; sq->statuses && sq->statuses[i]; i++)
		httpc_query_add(q, "status", sq->statuses[i]);
	if (sq->last_change_time && *sq->last_change_time)
		httpc_query_add(q, "last_change_time", sq->last_change_time);
	if (sq->include_fields && *sq->include_fields)
		httpc_query_add(q, "include_fields", sq->include_fields);
}

int bz_search(struct bz *bz, const struct bz_query *sq, struct bz_bug_list *out)
{
	struct buf q = BUF_INIT, body = BUF_INIT, err = BUF_INIT;
	size_t start = out->n;
	long offset = 0;
	int ret = -1;

	for (;;) {
		size_t before = out->n;

		buf_reset(&q);
		buf_reset(&body);
		query_common(&q, sq);
		if (sq->page_size > 0) {
			httpc_query_add(&q, "order", "bug_id");
			httpc_query_addf(&q, "limit", "%d", sq->page_size);
			httpc_query_addf(&q, "offset", "%ld", offset);
		}
		if (call(bz, "GET", "/rest/bug", &q, NULL, &body))
			goto out;
		if (bz_parse_bugs(body.ptr, out, &err)) {
			bad_answer(bz, "GET", "/rest/bug", &err);
			goto out;
		}
		/* a short page is the last one */
		if (sq->page_size <= 0 || out->n - before < (size_t)sq->page_size)
			break;
		offset += sq->page_size;
	}
	ret = 0;
out:
	if (ret)
		bz_bug_list_truncate(out, start);	/* keep only the caller's items */
	buf_release(&q);
	buf_release(&body);
	buf_release(&err);
	return ret;
}

int bz_bug_get(struct bz *bz, long id, struct bz_bug_list *out)
{
	struct buf path = BUF_INIT, body = BUF_INIT, err = BUF_INIT;
	int ret = -1;

	buf_addf(&path, "/rest/bug/%ld", id);
	if (!call(bz, "GET", path.ptr, NULL, NULL, &body))
		ret = parsed(bz, path.ptr, bz_parse_bugs(body.ptr, out, &err), &err);
	buf_release(&path);
	buf_release(&body);
	buf_release(&err);
	return ret;
}

int bz_comments(struct bz *bz, long bug_id, const char *new_since,
		struct bz_comment_list *out)
{
	struct buf path = BUF_INIT, q = BUF_INIT, body = BUF_INIT, err = BUF_INIT;
	int ret = -1;

	buf_addf(&path, "/rest/bug/%ld/comment", bug_id);
	if (new_since && *new_since)
		httpc_query_add(&q, "new_since", new_since);
	if (!call(bz, "GET", path.ptr, &q, NULL, &body))
		ret = parsed(bz, path.ptr, bz_parse_comments(body.ptr, bug_id, out, &err), &err);
	buf_release(&path);
	buf_release(&q);
	buf_release(&body);
	buf_release(&err);
	return ret;
}

int bz_attachments(struct bz *bz, long bug_id, bool with_data,
		   struct bz_attachment_list *out)
{
	struct buf path = BUF_INIT, q = BUF_INIT, body = BUF_INIT, err = BUF_INIT;
	int ret = -1;

	buf_addf(&path, "/rest/bug/%ld/attachment", bug_id);
	if (!with_data)
		httpc_query_add(&q, "exclude_fields", "data");
	if (!call(bz, "GET", path.ptr, &q, NULL, &body))
		ret = parsed(bz, path.ptr, bz_parse_attachments(body.ptr, bug_id, out, &err),
			     &err);
	buf_release(&path);
	buf_release(&q);
	buf_release(&body);
	buf_release(&err);
	return ret;
}

int bz_attachment_get(struct bz *bz, long attachment_id, struct bz_attachment_list *out)
{
	struct buf path = BUF_INIT, body = BUF_INIT, err = BUF_INIT;
	size_t before = out->n;
	int ret = -1;

	buf_addf(&path, "/rest/bug/attachment/%ld", attachment_id);
	if (call(bz, "GET", path.ptr, NULL, NULL, &body))
		goto out;
	if (bz_parse_attachment_map(body.ptr, out, &err)) {
		bad_answer(bz, "GET", path.ptr, &err);
		goto out;
	}
	/* a missing attachment is a 200 with empty maps */
	if (out->n == before) {
		fail(bz, BZ_ERR_NOT_FOUND, "GET", path.ptr, "%s", "no such attachment");
		goto out;
	}
	ret = 0;
out:
	buf_release(&path);
	buf_release(&body);
	buf_release(&err);
	return ret;
}

int bz_comment_add(struct bz *bz, long bug_id, const char *text, bool is_private,
		   long *comment_id)
{
	struct buf path = BUF_INIT, body = BUF_INIT, err = BUF_INIT;
	json_object *obj = json_object_new_object();
	int ret = -1;

	buf_addf(&path, "/rest/bug/%ld/comment", bug_id);
	json_object_object_add(obj, "comment", json_object_new_string(text));
	if (is_private)
		json_object_object_add(obj, "is_private", json_object_new_boolean(1));
	if (call(bz, "POST", path.ptr, NULL, json_object_to_json_string_ext(obj,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), &body))
		goto out;
	if (bz_parse_id(body.ptr, comment_id, &err)) {
		bad_answer(bz, "POST", path.ptr, &err);
		goto out;
	}
	ret = 0;
out:
	json_object_put(obj);
	buf_release(&path);
	buf_release(&body);
	buf_release(&err);
	return ret;
}

int bz_bug_update(struct bz *bz, long bug_id, const char *changes_json)
{
	struct buf path = BUF_INIT, body = BUF_INIT, err = BUF_INIT;
	json_object *root = NULL, *bugs = NULL;
	int ret = -1;

	buf_addf(&path, "/rest/bug/%ld", bug_id);
	if (call(bz, "PUT", path.ptr, NULL, changes_json, &body))
		goto out;
	root = json_tokener_parse(body.ptr);
	if (!root || !json_object_object_get_ex(root, "bugs", &bugs) ||
	    !json_object_is_type(bugs, json_type_array)) {
		buf_addstr(&err, "bugs: expected an array of updated bugs");
		bad_answer(bz, "PUT", path.ptr, &err);
		goto out;
	}
	ret = 0;
out:
	json_object_put(root);
	buf_release(&path);
	buf_release(&body);
	buf_release(&err);
	return ret;
}

int bz_field(struct bz *bz, const char *name, struct buf *body)
{
	struct buf path = BUF_INIT;
	int ret;

	buf_addf(&path, "/rest/field/bug/%s", name);
	ret = call_anon(bz, path.ptr, body);
	buf_release(&path);
	return ret;
}

int bz_statuses(struct bz *bz, struct bz_status_list *out)
{
	struct buf body = BUF_INIT, err = BUF_INIT;
	int ret = call_anon(bz, "/rest/field/bug/bug_status", &body);

	if (!ret)
		ret = parsed(bz, "/rest/field/bug/bug_status",
			     bz_parse_statuses(body.ptr, out, &err), &err);
	buf_release(&body);
	buf_release(&err);
	return ret;
}

int bz_users(struct bz *bz, const char *const *names, size_t n, struct bz_user_list *out)
{
	struct buf q = BUF_INIT, body = BUF_INIT, err = BUF_INIT;
	int ret;

	for (size_t i = 0; i < n; i++)
		httpc_query_add(&q, "names", names[i]);
	ret = call(bz, "GET", "/rest/user", &q, NULL, &body);
	if (!ret)
		ret = parsed(bz, "/rest/user", bz_parse_users(body.ptr, out, &err), &err);
	buf_release(&q);
	buf_release(&body);
	buf_release(&err);
	return ret;
}

int bz_whoami(struct bz *bz, struct buf *login)
{
	struct buf body = BUF_INIT, err = BUF_INIT;
	int ret = call(bz, "GET", "/rest/whoami", NULL, NULL, &body);

	if (!ret)
		ret = parsed(bz, "/rest/whoami", bz_parse_whoami(body.ptr, login, &err), &err);
	buf_release(&body);
	buf_release(&err);
	return ret;
}

int bz_valid_login(struct bz *bz, const char *login, bool *yes)
{
	struct buf q = BUF_INIT, body = BUF_INIT, err = BUF_INIT;
	int ret;

	httpc_query_add(&q, "login", login);
	ret = call(bz, "GET", "/rest/valid_login", &q, NULL, &body);
	if (!ret)
		ret = parsed(bz, "/rest/valid_login", bz_parse_valid_login(body.ptr, yes, &err),
			     &err);
	buf_release(&q);
	buf_release(&body);
	buf_release(&err);
	return ret;
}

static size_t utf8_chars(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	return n;
}

/* Byte length of the longest prefix of s holding at most chars characters. */
static size_t utf8_prefix(const char *s, size_t chars)
{
	size_t i = 0, n = 0;

	while (s[i]) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == chars)
			break;
		i++;
	}
	return i;
}

void bz_comment_fit(const char *text, const char *keep, size_t max_chars, struct buf *out)
{
	static const char note[] = "\n\n[... cut by bugbridge to fit the tracker's limit;"
				   " the full text is on the dashboard]\n\n";
	const char *line = keep && *keep ? strstr(text, keep) : NULL;
	size_t len = strlen(text), tail_len = 0, room, cut;
	const char *tail = "";

	buf_reset(out);
	if (utf8_chars(text, len) <= max_chars) {
		buf_add(out, text, len);
		return;
	}
	if (line) {
		/* the whole line holding the marker */
		while (line > text && line[-1] != '\n')
			line--;
		tail = line;
		tail_len = strcspn(line, "\n");
	} else if (keep && *keep) {
		tail = keep;
		tail_len = strlen(keep);
	}
	room = max_chars - utf8_chars(note, sizeof(note) - 1) - utf8_chars(tail, tail_len) - 1;
	cut = utf8_prefix(text, room);
	/* prefer ending at a line boundary if one is near */
	for (size_t i = cut; i > 0 && cut - i < 2000; i--) {
		if (text[i - 1] == '\n') {
			cut = i - 1;
			break;
		}
	}
	buf_add(out, text, cut);
	buf_addstr(out, note);
	buf_add(out, tail, tail_len);
	buf_addch(out, '\n');
}
