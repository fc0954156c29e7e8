/*
 * bugzilla: a typed client for the Bugzilla 5.x REST API.
 *
 * Speaks what upstream 5.0/5.2 and 5.1+/BMO all understand (see
 * ../shared/bugzilla/README.md for the facts this relies on):
 *
 *  - Credentials: the X-BUGZILLA-API-KEY header (5.1+) AND "api_key" in
 *    the JSON body of every POST/PUT (5.0/5.2 ignore the header), and
 *    api_key= in the query of GETs when a key is configured, because on
 *    5.0/5.2 a GET with only the header is silently anonymous and private
 *    bugs vanish from searches.  URLs are redacted before they are logged.
 *  - Errors: an {"error":true,"code":N,"message":...} body becomes a typed
 *    error (enum bz_err) carrying the tracker's own message; a body that is
 *    not the JSON we expect is BZ_ERR_MALFORMED naming the field.
 *  - Types: attachment flags may be 0/1 or true/false; "id" keys of comment
 *    maps are strings; null where a string is expected reads as "".
 *
 * Parsing (bz_parse_*) is separate from transport so that it can be tested
 * against the recorded bodies; the bz_* calls do a request and parse.
 *
 * Ownership: lists own their items; bz_*_list_release() frees them.  A
 * struct bz owns its HTTP client and copies of the URL and key.
 */
#ifndef BB_BUGZILLA_H
#define BB_BUGZILLA_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include "buf.h"
#include "httpc.h"

enum bz_err {
	BZ_OK = 0,
	BZ_ERR_TRANSPORT,	/* no answer: connect, timeout, truncated, too big */
	BZ_ERR_SERVER,		/* 5xx or 429 (after retries) */
	BZ_ERR_NOT_FOUND,	/* 101, 51, 32614, 100: bug, value or resource missing */
	BZ_ERR_NO_PERMISSION,	/* 102, 106, 109, 110, 113, 115, 120, 123, 505 */
	BZ_ERR_LOGIN,		/* 410 login required, 306 bad key, 300-307 */
	BZ_ERR_INVALID,		/* any other tracker error: an invalid field or value */
	BZ_ERR_MALFORMED,	/* not JSON, or not the JSON we expect */
};

const char *bz_err_name(enum bz_err e);
/* Which class a Bugzilla error code belongs to. */
enum bz_err bz_err_from_code(long code);

struct bz_opts {
	const char *url;	/* base URL, the part before /rest */
	const char *api_key;	/* "" or NULL: anonymous */
	struct httpc_opts http;
};

struct bz {
	struct httpc http;
	char *url;		/* without trailing slash */
	char *api_key;		/* "" when anonymous */
	/* the last call's outcome */
	enum bz_err err;
	long code;		/* tracker error code, 0 if none */
	long status;		/* HTTP status, 0 if none */
	long long date;		/* the answer's Date header (server clock), 0 if none */
	enum httpc_fail fail;	/* why there was no answer (BZ_ERR_TRANSPORT) */
	long retry_after;	/* the answer's Retry-After in seconds, -1 if none */
	struct buf errmsg;	/* what went wrong, redacted; "" after success */
};

struct bz_bug {
	long id;
	char *product, *component, *status, *resolution, *summary;
	char *creator, *assigned_to, *whiteboard, *version;
	char *cf_kernel_version;	/* kernel.org's custom field; "" where absent */
	char *keywords;		/* sorted, ", "-joined */
	char *groups;		/* sorted, ", "-joined; "" for a public bug */
	char *creation_time, *last_change_time;
	bool is_open;
};

struct bz_comment {
	long id, bug_id, attachment_id;	/* attachment_id 0: none */
	int count;
	char *creator, *time, *text;
	bool is_private;
};

struct bz_attachment {
	long id, bug_id, size;
	char *file_name, *summary, *content_type, *creator;
	char *creation_time, *last_change_time;
	bool is_patch, is_obsolete, is_private;
	bool has_data;		/* data was in the answer */
	unsigned char *data;	/* decoded, NUL-terminated for convenience */
	size_t data_len;
};

struct bz_status {
	char *name;
	bool is_open;
};

/* GET /rest/user: an account and, when the caller may see them, its groups. */
struct bz_user {
	char *name;
	char *groups;		/* sorted, ", "-joined; NULL: the answer did not say */
};

#define BZ_LIST(type, name) \
	struct name { struct type *v; size_t n, alloc; }
BZ_LIST(bz_bug, bz_bug_list);
BZ_LIST(bz_comment, bz_comment_list);
BZ_LIST(bz_attachment, bz_attachment_list);
BZ_LIST(bz_status, bz_status_list);
BZ_LIST(bz_user, bz_user_list);

void bz_bug_list_release(struct bz_bug_list *l);
/* A new zeroed item at the end (e.g. to move an item between lists). */
struct bz_bug *bz_bug_list_push(struct bz_bug_list *l);
struct bz_attachment *bz_attachment_list_push(struct bz_attachment_list *l);
/* Free the items from n on. */
void bz_bug_list_truncate(struct bz_bug_list *l, size_t n);
void bz_comment_list_release(struct bz_comment_list *l);
void bz_attachment_list_release(struct bz_attachment_list *l);
void bz_status_list_release(struct bz_status_list *l);
void bz_user_list_release(struct bz_user_list *l);

/* A search (GET /rest/bug?...).  Empty fields are left out. */
struct bz_query {
	const long *ids;		/* id=a,b,c */
	size_t nids;
	const char *product, *component;
	const char *const *statuses;	/* NULL-terminated, or NULL */
	const char *last_change_time;	/* inclusive (>=) */
	const char *include_fields;	/* NULL: everything */
	int page_size;			/* > 0: limit/offset paging, order=bug_id */
};

/* From explicit options; -1 with err if libcurl cannot start. */
int bz_init(struct bz *bz, const struct bz_opts *opts, struct buf *err);
/* From [tracker] in the configuration (key via config_secret). */
int bz_init_config(struct bz *bz, const volatile sig_atomic_t *stop, struct buf *err);
void bz_release(struct bz *bz);
/* Requests made so far. */
unsigned long bz_requests(const struct bz *bz);

/*
 * The calls.  Each returns 0 on success, -1 on failure with bz->err,
 * bz->code and bz->errmsg set ("GET /rest/bug/9370: <tracker's message>
 * (code 101, HTTP 404)").  Output lists are appended to.
 */
int bz_version(struct bz *bz, struct buf *version);
int bz_time(struct bz *bz, struct buf *db_time);
int bz_search(struct bz *bz, const struct bz_query *q, struct bz_bug_list *out);
int bz_bug_get(struct bz *bz, long id, struct bz_bug_list *out);
/* new_since: NULL or a time; strict (>), so callers overlap and dedupe. */
int bz_comments(struct bz *bz, long bug_id, const char *new_since,
		struct bz_comment_list *out);
/* with_data false: metadata only (exclude_fields=data). */
int bz_attachments(struct bz *bz, long bug_id, bool with_data,
		   struct bz_attachment_list *out);
int bz_attachment_get(struct bz *bz, long attachment_id, struct bz_attachment_list *out);
/*
 * POST /rest/bug/{id}/comment (201); *comment_id gets the new id.
 * is_private: only the tracker's insiders may read it (the bot must be one,
 * or the tracker refuses with 113).
 */
int bz_comment_add(struct bz *bz, long bug_id, const char *text, bool is_private,
		   long *comment_id);
/*
 * PUT /rest/bug/{id} with a JSON object of changes (status, resolution,
 * whiteboard, keywords {add, remove, set}, cc {add, remove}, comment...);
 * the api_key is added here.  No retry: the caller owns idempotency.
 */
int bz_bug_update(struct bz *bz, long bug_id, const char *changes_json);
/*
 * Fit a comment into the tracker's limit of max_chars characters (Unicode
 * code points, as Bugzilla counts them): if text is longer, cut it at a line
 * (or character) boundary and append a note and the line holding `keep`
 * (the marker), so the marker always survives.  out is reset first.
 */
void bz_comment_fit(const char *text, const char *keep, size_t max_chars, struct buf *out);
/* GET /rest/field/bug/{name}, anonymously: the raw answer in body. */
int bz_field(struct bz *bz, const char *name, struct buf *body);
/* GET /rest/field/bug/bug_status: every status with its is_open. */
int bz_statuses(struct bz *bz, struct bz_status_list *out);
/*
 * GET /rest/user?names=a&names=b: the accounts, with their groups where
 * Bugzilla shows them to us (our own account; any account when we are in
 * editusers or may bless the group).  An unknown name fails the call (51).
 */
int bz_users(struct bz *bz, const char *const *names, size_t n, struct bz_user_list *out);
/*
 * Who the key belongs to: GET /rest/whoami (5.1+, BMO), its login into
 * *login.  Upstream 5.0 and 5.2 have no such call: they answer 404 with
 * code 32614 (BZ_ERR_NOT_FOUND), and there bz_valid_login() tells whether
 * the key is a given login's.
 */
int bz_whoami(struct bz *bz, struct buf *login);
/* GET /rest/valid_login?login=L (5.0+): *yes when the key belongs to L. */
int bz_valid_login(struct bz *bz, const char *login, bool *yes);

/*
 * Parsers over a response body (pure; used by the calls above and the unit
 * tests).  0 on success; -1 with "field: what is wrong" in err.
 */
int bz_parse_error(const char *body, long *code, struct buf *message);
int bz_parse_version(const char *body, struct buf *version, struct buf *err);
int bz_parse_time(const char *body, struct buf *db_time, struct buf *err);
int bz_parse_bugs(const char *body, struct bz_bug_list *out, struct buf *err);
int bz_parse_comments(const char *body, long bug_id, struct bz_comment_list *out,
		      struct buf *err);
int bz_parse_attachments(const char *body, long bug_id, struct bz_attachment_list *out,
			 struct buf *err);
int bz_parse_attachment_map(const char *body, struct bz_attachment_list *out,
			    struct buf *err);
int bz_parse_statuses(const char *body, struct bz_status_list *out, struct buf *err);
int bz_parse_users(const char *body, struct bz_user_list *out, struct buf *err);
int bz_parse_whoami(const char *body, struct buf *login, struct buf *err);
int bz_parse_valid_login(const char *body, bool *yes, struct buf *err);
int bz_parse_id(const char *body, long *id, struct buf *err);
/* words[0..n) sorted (in place) and ", "-joined: how keywords and groups are kept. */
char *bz_words_joined(const char **words, size_t n);


#endif
