/*
 * standin: a stand-in Bugzilla 5.2 REST server for the tests and the demo.
 *
 * It answers the calls bugbridge makes with the shapes, types, statuses and
 * error codes recorded from a real Bugzilla 5.2 (../shared/bugzilla/), keeps
 * its state in its own SQLite file, and can be told to misbehave through
 * /__control/ (see README.md in this directory).
 *
 * Concurrency: libmicrohttpd runs one thread per connection; every request is
 * handled under one mutex (standin.lock) on one SQLite connection, so the
 * handlers below never see a concurrent change.  Only deliberate delays run
 * outside the lock.
 *
 * Map of the code:
 *   main.c     command line, libmicrohttpd glue, sending answers
 *   control.c  misbehaviour switches and the request log (/__control/)
 *   request.c  parameters (query + JSON or form body), auth, errors, routing
 *   store.c    schema, users, times, seeding from the fixture
 *   bug_read.c bug JSON, get, history
 *   bug_search.c bug search
 *   workflow.c  the default 5.x workflow (statuses, transitions)
 *   bug_create.c bug create, and the bug-row primitives
 *   bug_update.c bug update (workflow, permissions, changes)
 *   comment.c  comments: list and add
 *   attach.c   attachments: list, get, add, update
 *   misc.c     version, time, fields, valid_login, user
 */
#ifndef BB_STANDIN_H
#define BB_STANDIN_H

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "buf.h"
#include "db.h"

#define SA_DOC_URL "https://bugzilla.readthedocs.org/en/5.0/api/"
#define SA_MAX_SEARCH 10000
#define SA_MAX_COMMENT 65535

struct sa_faults {
	int fail_count, fail_status, retry_after;	/* retry_after < 0: none */
	bool fail_comments;				/* only comment POSTs fail */
	int delay_ms, delay_count;			/* delay_count < 0: forever */
	bool delay_commit_first;			/* handle, then wait */
	int malformed_count;
	int truncate_count;
	int oversize_count;
	long oversize_bytes;
	int drop_comment_count;
	bool whoami;		/* answer GET /rest/whoami as 5.1+ and BMO do (5.2: 404) */
};

struct standin {
	pthread_mutex_t lock;
	struct db db;
	struct sa_faults faults;
	struct json_object *requests;	/* the request log: array, owned */
};

struct sa_user {
	int id;			/* 0: anonymous */
	char login[128];
	char real_name[128];
	char groups[256];	/* comma-separated group names */
};

/* One REST request while it is handled; see request.c. */
struct sa_req {
	struct standin *st;
	const char *method;
	const char *path;		/* after "/rest", e.g. "/bug/9370" */
	struct json_object *params;	/* query + body, owned */
	struct sa_user user;
	time_t now;
	/* the answer */
	int status;
	struct json_object *reply;	/* owned; NULL until set */
	/* include_fields / exclude_fields, parsed on first use; owned */
	struct json_object *inc, *exc;
};

/* request.c */
int sa_error(struct sa_req *r, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sa_error_status(int code);
void sa_reply(struct sa_req *r, int status, struct json_object *obj);
/* A parameter as a string (first element of a list); NULL if absent. */
const char *sa_param(struct sa_req *r, const char *name);
bool sa_has_param(struct sa_req *r, const char *name);
/* A parameter as a new list of strings (split_commas: "1,2" is two). */
struct json_object *sa_param_list(struct sa_req *r, const char *name, bool split_commas);
/* Parse the JSON or form body into params; -1 (and an error reply) if bad. */
int sa_parse_body(struct sa_req *r, const char *content_type,
		  const char *body, size_t len);
int sa_authenticate(struct sa_req *r);
bool sa_in_group(const struct sa_user *u, const char *group);
bool sa_can_edit(const struct sa_user *u);		/* editbugs or admin */
int sa_require_login(struct sa_req *r);
void sa_dispatch(struct sa_req *r);
/* "9370" -> 9370; -1 (and error 100) when not a bug number. */
int sa_bug_id(struct sa_req *r, const char *s);
/* Whether include_fields / exclude_fields let field through. */
bool sa_field_wanted(struct sa_req *r, const char *field);
/* Filter obj's keys by include_fields / exclude_fields. */
void sa_filter_fields(struct sa_req *r, struct json_object *obj);

/* store.c */
int sa_store_open(struct standin *st, const char *path, const char *seed,
		  bool reset, struct buf *err);
void sa_fmt_time(time_t t, char out[32]);
struct json_object *sa_time_json(time_t t);
/* Parse a Bugzilla date; -1 if not legal. */
int sa_parse_time(const char *s, time_t *out);
int sa_user_by_id(struct db *db, int id, struct sa_user *u);
int sa_user_by_login(struct db *db, const char *login, struct sa_user *u);
int sa_user_by_key(struct db *db, const char *key, struct sa_user *u);
int sa_user_by_password(struct db *db, const char *login, const char *pw,
			struct sa_user *u);
struct json_object *sa_user_detail(const struct sa_user *u);
bool sa_keyword_exists(struct db *db, const char *name);
bool sa_component_exists(struct db *db, const char *product, const char *component);
bool sa_product_exists(struct db *db, const char *product);

/* bug_read.c */
struct sa_bug {
	int id;
	char product[64], component[64], status[32], resolution[32];
	char groups[128];
	int creator, assigned_to;
	int everconfirmed;
	time_t creation_time, last_change_time;
};
int sa_bug_load(struct db *db, int id, struct sa_bug *b);
/* A row of id, product, component, status, resolution, groups, creator,
 * assigned_to, everconfirmed, creation_time, last_change_time. */
void sa_bug_from_row(sqlite3_stmt *st, struct sa_bug *b);
/* The bug as Bug.get prints it for r's user, filtered by include_fields. */
struct json_object *sa_bug_json(struct sa_req *r, const struct sa_bug *b);
bool sa_bug_visible(const struct sa_bug *b, const struct sa_user *u);
/* Load bug id for the user: errors 101 (missing) / 102 (private) on failure. */
int sa_bug_check(struct sa_req *r, int id, struct sa_bug *b);
int sa_bug_touch(struct db *db, int id, time_t when);
int sa_history_add(struct db *db, int bug, int who, time_t when, const char *field,
		   const char *removed, const char *added, int attach_id);
void sa_get_bugs(struct sa_req *r, int id);
void sa_get_history(struct sa_req *r, int id);

/* bug_search.c */
void sa_search_bugs(struct sa_req *r);

/* workflow.c */
bool sa_status_known(const char *status);
bool sa_status_open(const char *status);	/* unknown counts as open */
bool sa_transition_ok(const char *from, const char *to);
bool sa_resolution_known(const char *resolution);
bool sa_can_confirm(const struct sa_user *u);	/* canconfirm or editbugs */
struct json_object *sa_status_values(void);	/* values with can_change_to */
struct json_object *sa_resolution_values(bool names_only);
void sa_status_names(struct json_object *list);

/* bug_create.c */
struct sa_newbug {
	int id;			/* 0: the next free id */
	const char *product, *component, *summary, *status, *resolution;
	const char *version, *op_sys, *platform, *priority, *severity;
	const char *whiteboard, *cf_kernel_version, *cf_regression, *url;
	const char *groups;	/* comma-separated */
	int creator, assigned_to;
	bool everconfirmed;
	time_t when;
};
/* Insert the bug row only (no description, keywords or cc); *out_id. */
int sa_bug_insert(struct db *db, const struct sa_newbug *nb, int *out_id);
int sa_bug_add_keyword(struct db *db, int bug, const char *keyword);
int sa_bug_add_cc(struct db *db, int bug, int user);
int sa_bug_del_keyword(struct db *db, int bug, const char *keyword);
int sa_bug_del_cc(struct db *db, int bug, int user);
void sa_create_bug(struct sa_req *r);

/* bug_update.c */
void sa_update_bug(struct sa_req *r, int id);

/* comment.c */
int sa_comment_add(struct db *db, int bug, int who, const char *text, bool priv,
		   int attach_id, time_t when, int *out_id);
void sa_get_comments(struct sa_req *r, int bug);
void sa_get_comment(struct sa_req *r, int id);
void sa_add_comment(struct sa_req *r, int bug);
/* Validate comment text: 50 (empty) and 114 (too long); -1 with the error. */
int sa_comment_check(struct sa_req *r, const char *text);

/* attach.c */
int sa_attach_insert(struct db *db, int bug, int who, const char *file_name,
		     const char *summary, const char *content_type,
		     const void *data, size_t len, bool is_patch, bool is_obsolete,
		     bool is_private, const char *comment, time_t when, int *out_id);
void sa_get_bug_attachments(struct sa_req *r, int bug);
void sa_get_attachment(struct sa_req *r, int id);
void sa_add_attachment(struct sa_req *r, int bug);
void sa_update_attachment(struct sa_req *r, int id);

/* misc.c */
void sa_get_version(struct sa_req *r);
void sa_get_time(struct sa_req *r);
void sa_get_field(struct sa_req *r, const char *name, bool values_only);
void sa_valid_login(struct sa_req *r);
void sa_whoami(struct sa_req *r);
void sa_get_user(struct sa_req *r);

/* control.c */
/* Handle a /__control/ request: fills *status and *body. */
void sa_control(struct standin *st, const char *method, const char *url,
		struct json_object *query, int *status, struct buf *body);
/* Append to the request log; returns a new reference to the entry. */
struct json_object *sa_log_request(struct standin *st, const char *method,
				   const char *path, struct json_object *query);
/* Record the status sent for entry and drop the reference. */
void sa_log_status(struct json_object *entry, int status);
/* What to do with the next (non-control) request; counters are consumed. */
struct sa_plan {
	int delay_ms;
	bool commit_first;	/* delay after handling, not before */
	int fail_status, retry_after;
	bool malformed, truncate, oversize, drop_after_comment;
	long oversize_bytes;
};
void sa_faults_next(struct standin *st, bool is_comment_post, struct sa_plan *p);
/* A comment was committed: consume one drop-after-comment; true if armed. */
bool sa_faults_take_drop(struct standin *st);

#endif
