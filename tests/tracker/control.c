/*
 * control: the misbehaviour switches and the request log.
 *
 * Tests reach these under /__control/ (a path no Bugzilla has), e.g.
 *   POST /__control/fail?count=5&status=500
 * Each switch arms a counter that the next non-control requests consume
 * (sa_faults_next).  The request log keeps method, path and query of every
 * REST request with secrets replaced by REDACTED, so a test can count what a
 * client asked.  Control requests are not logged.  See README.md.
 */
#include "standin.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool secret_param(const char *key)
{
	return !strcmp(key, "api_key") || !strcmp(key, "Bugzilla_api_key") ||
	       !strcmp(key, "password") || !strcmp(key, "Bugzilla_password") ||
	       !strcmp(key, "Bugzilla_token") || !strcmp(key, "token");
}

static void add_escaped(struct buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = *s;
		if (ch <= ' ' || ch >= 0x7f || strchr("%&=+#?\"", ch))
			buf_addf(b, "%%%02X", ch);
		else
			buf_addch(b, ch);
	}
}

static void add_arg(struct buf *b, const char *key, const char *value)
{
	buf_addch(b, b->len ? '&' : '?');
	add_escaped(b, key);
	buf_addch(b, '=');
	add_escaped(b, secret_param(key) ? "REDACTED" : value);
}

struct json_object *sa_log_request(struct standin *st, const char *method,
				   const char *path, struct json_object *query)
{
	struct json_object *e = json_object_new_object();
	struct buf q = BUF_INIT, full = BUF_INIT;

	json_object_object_foreach(query, key, val) {
		if (json_object_is_type(val, json_type_array)) {
			for (size_t i = 0; i < json_object_array_length(val); i++)
				add_arg(&q, key, json_object_get_string(
					json_object_array_get_idx(val, i)));
		} else {
			add_arg(&q, key, json_object_get_string(val));
		}
	}
	buf_addf(&full, "%s%s", path, q.ptr);
	json_object_object_add(e, "method", json_object_new_string(method));
	json_object_object_add(e, "path", json_object_new_string(full.ptr));
	json_object_object_add(e, "status", json_object_new_int(0));
	json_object_array_add(st->requests, json_object_get(e));
	buf_release(&q);
	buf_release(&full);
	return e;
}

void sa_log_status(struct json_object *entry, int status)
{
	/* the path is already redacted: no key reaches the log */
	log_info("%s %s -> %d",
		 json_object_get_string(json_object_object_get(entry, "method")),
		 json_object_get_string(json_object_object_get(entry, "path")), status);
	json_object_object_add(entry, "status", json_object_new_int(status));
	json_object_put(entry);
}

void sa_faults_next(struct standin *st, bool is_comment_post, struct sa_plan *p)
{
	struct sa_faults *f = &st->faults;

	memset(p, 0, sizeof(*p));
	p->retry_after = -1;
	if (f->delay_ms > 0 && f->delay_count != 0) {
		p->delay_ms = f->delay_ms;
		p->commit_first = f->delay_commit_first;
		if (f->delay_count > 0)
			f->delay_count--;
	}
	if (f->fail_count > 0 && (!f->fail_comments || is_comment_post)) {
		f->fail_count--;
		p->fail_status = f->fail_status;
		p->retry_after = f->retry_after;
		return;
	}
	if (f->malformed_count > 0) {
		f->malformed_count--;
		p->malformed = true;
		return;
	}
	if (f->oversize_count > 0) {
		f->oversize_count--;
		p->oversize = true;
		p->oversize_bytes = f->oversize_bytes;
		return;
	}
	if (f->truncate_count > 0) {
		f->truncate_count--;
		p->truncate = true;
	}
	p->drop_after_comment = is_comment_post && f->drop_comment_count > 0;
}

bool sa_faults_take_drop(struct standin *st)
{
	if (st->faults.drop_comment_count <= 0)
		return false;
	st->faults.drop_comment_count--;
	return true;
}

/* An integer query parameter, def when absent; false if malformed. */
static bool int_arg(struct json_object *query, const char *name, long def,
		    long min, long max, long *out)
{
	struct json_object *v;
	const char *s;
	char *end;

	*out = def;
	if (!json_object_object_get_ex(query, name, &v))
		return true;
	if (json_object_is_type(v, json_type_array))
		v = json_object_array_get_idx(v, 0);
	s = json_object_get_string(v);
	*out = strtol(s, &end, 10);
	return *s && !*end && *out >= min && *out <= max;
}

static struct json_object *faults_json(const struct sa_faults *f)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "fail_count", json_object_new_int(f->fail_count));
	json_object_object_add(o, "fail_status", json_object_new_int(f->fail_status));
	json_object_object_add(o, "retry_after", json_object_new_int(f->retry_after));
	json_object_object_add(o, "fail_comments", json_object_new_boolean(f->fail_comments));
	json_object_object_add(o, "delay_ms", json_object_new_int(f->delay_ms));
	json_object_object_add(o, "delay_count", json_object_new_int(f->delay_count));
	json_object_object_add(o, "delay_commit_first",
			       json_object_new_boolean(f->delay_commit_first));
	json_object_object_add(o, "malformed_count", json_object_new_int(f->malformed_count));
	json_object_object_add(o, "truncate_count", json_object_new_int(f->truncate_count));
	json_object_object_add(o, "oversize_count", json_object_new_int(f->oversize_count));
	json_object_object_add(o, "oversize_bytes", json_object_new_int64(f->oversize_bytes));
	json_object_object_add(o, "drop_comment_count",
			       json_object_new_int(f->drop_comment_count));
	json_object_object_add(o, "whoami", json_object_new_boolean(f->whoami));
	return o;
}

static void faults_reset(struct sa_faults *f)
{
	memset(f, 0, sizeof(*f));
	f->retry_after = -1;
}

/* Apply one switch; -1 with a message in err when its arguments are bad. */
static int set_switch(struct sa_faults *f, const char *what,
		      struct json_object *q, struct buf *err)
{
	long count, a, b;

	if (!int_arg(q, "count", 1, 0, 1000000, &count)) {
		buf_addstr(err, "count must be an integer >= 0");
		return -1;
	}
	if (!strcmp(what, "fail")) {
		long only;

		if (!int_arg(q, "status", 500, 100, 599, &a) ||
		    !int_arg(q, "retry_after", -1, -1, 86400, &b) ||
		    !int_arg(q, "comments", 0, 0, 1, &only)) {
			buf_addstr(err, "status must be 100..599, retry_after seconds, comments 0 or 1");
			return -1;
		}
		f->fail_comments = only;
		f->fail_count = count;
		f->fail_status = a;
		f->retry_after = b;
	} else if (!strcmp(what, "delay")) {
		if (!int_arg(q, "ms", 0, 0, 600000, &a) ||
		    !int_arg(q, "count", -1, -1, 1000000, &count)) {
			buf_addstr(err, "ms must be 0..600000, count >= -1");
			return -1;
		}
		if (!int_arg(q, "commit_first", 0, 0, 1, &b)) {
			buf_addstr(err, "commit_first must be 0 or 1");
			return -1;
		}
		f->delay_ms = a;
		f->delay_count = count;
		f->delay_commit_first = b;
	} else if (!strcmp(what, "malformed")) {
		f->malformed_count = count;
	} else if (!strcmp(what, "truncate")) {
		f->truncate_count = count;
	} else if (!strcmp(what, "oversize")) {
		if (!int_arg(q, "bytes", 32L << 20, 1, 1L << 31, &a)) {
			buf_addstr(err, "bytes must be 1..2^31");
			return -1;
		}
		f->oversize_count = count;
		f->oversize_bytes = a;
	} else if (!strcmp(what, "drop-after-comment")) {
		f->drop_comment_count = count;
	} else if (!strcmp(what, "whoami")) {
		if (!int_arg(q, "on", 1, 0, 1, &a)) {
			buf_addstr(err, "on must be 0 or 1");
			return -1;
		}
		f->whoami = a;
	} else {
		buf_addf(err, "unknown switch '%s'", what);
		return -1;
	}
	return 0;
}

/*
 * touch: make bugs change without going through the REST API (benchmarks
 * and poll tests): each existing bug gets a comment by bot@example.com,
 * which bumps its last_change_time like any change.
 */
static int touch_bugs(struct standin *st, struct json_object *q,
		      struct json_object *o, struct buf *err)
{
	struct sa_user bot;
	long first, count, n = 0;
	const char *text = "touched through /__control/touch";
	struct json_object *v;
	time_t now = time(NULL);
	int cid;

	if (!int_arg(q, "first", 0, 1, 2000000000, &first) || !first ||
	    !int_arg(q, "count", 1, 1, 1000000, &count)) {
		buf_addstr(err, "touch needs first=BUG [count=N] [comment=TEXT]");
		return -1;
	}
	if (json_object_object_get_ex(q, "comment", &v) && !json_object_is_type(v, json_type_array))
		text = json_object_get_string(v);
	if (sa_user_by_login(&st->db, "bot@example.com", &bot) &&
	    sa_user_by_id(&st->db, 1, &bot)) {
		buf_addstr(err, "no user to touch bugs with");
		return -1;
	}
	if (db_begin(&st->db))
		goto fail;
	for (long id = first; id < first + count; id++) {
		struct sa_bug b;
		if (sa_bug_load(&st->db, (int)id, &b))
			continue;
		if (sa_comment_add(&st->db, (int)id, bot.id, text, false, 0, now, &cid))
			goto fail;
		n++;
	}
	if (db_commit(&st->db))
		goto fail;
	json_object_object_add(o, "touched", json_object_new_int64(n));
	json_object_object_add(o, "last_change_time", sa_time_json(now));
	return 0;
fail:
	db_rollback(&st->db);
	buf_addf(err, "database error: %s", db_errmsg(&st->db));
	return -1;
}

void sa_control(struct standin *st, const char *method, const char *url,
		struct json_object *query, int *status, struct buf *body)
{
	const char *what = url + strlen("/__control");
	struct json_object *o = json_object_new_object();
	struct buf err = BUF_INIT;

	if (*what == '/')
		what++;
	*status = 200;
	if (!strcmp(what, "requests") && !strcmp(method, "GET")) {
		json_object_object_add(o, "requests", json_object_get(st->requests));
	} else if (!strcmp(what, "requests") && !strcmp(method, "DELETE")) {
		json_object_put(st->requests);
		st->requests = json_object_new_array();
	} else if (!strcmp(what, "faults") && !strcmp(method, "GET")) {
		json_object_object_add(o, "faults", faults_json(&st->faults));
	} else if (!strcmp(what, "reset") && !strcmp(method, "POST")) {
		faults_reset(&st->faults);
		json_object_put(st->requests);
		st->requests = json_object_new_array();
	} else if (!strcmp(what, "touch") && !strcmp(method, "POST")) {
		if (touch_bugs(st, query, o, &err)) {
			*status = 400;
			json_object_object_add(o, "error", json_object_new_string(err.ptr));
		}
	} else if (!strcmp(method, "POST")) {
		if (set_switch(&st->faults, what, query, &err)) {
			*status = 400;
			json_object_object_add(o, "error", json_object_new_string(err.ptr));
		} else {
			json_object_object_add(o, "faults", faults_json(&st->faults));
		}
	} else {
		*status = 404;
		json_object_object_add(o, "error",
			json_object_new_string("unknown control request"));
	}
	if (*status == 200)
		json_object_object_add(o, "ok", json_object_new_boolean(1));
	buf_addstr(body, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	buf_release(&err);
}
