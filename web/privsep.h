/*
 * privsep: what the dashboard's process may ask bugbridged for, and
 * nothing else (OpenBSD's imsg in miniature).
 *
 * The dashboard (web_child.c) holds no tracker key, no SMTP password, the
 * API token only as its hash, and a read-only export of what anyone may
 * see of the database (privsep_export.c); what it cannot do itself it asks
 * over one
 * SOCK_SEQPACKET socket, one fixed-size message per request and one per
 * answer, each checked for its exact size, its type and NUL-terminated
 * strings by the side that receives it:
 *
 *   PS_READY     child -> parent once it serves (no answer)
 *   PS_JOB_ADD   POST /api/jobs, after the child checked the token: the
 *                parent validates the spec again and queues the job
 *                (job_enqueue) on its own connection
 *   PS_LOG_OPEN  a job's log: the parent checks the name, opens it in the
 *                job's log_dir (O_NOFOLLOW, a regular file) and passes the
 *                open file back (SCM_RIGHTS); the child never opens a path
 *   PS_LOG_LIST  the names of a job's servable logs
 *   PS_ARTIFACT_OPEN  a file a LAVA worker fetches (artifacts.c): token and
 *                name checked and looked up, the file passed back
 *   PS_SYNC      before a request reads the database: the parent brings
 *                the dashboard's database, an export of what anyone may
 *                see, up to date (privsep_export.c)
 *   PS_RENDER    a GET of the token holder while [tracker] private_bugs =
 *                test: the parent draws the page from its own connection,
 *                where private bugs exist, and passes it back as a file
 *                (privsep_render.c); the dashboard has no private row to
 *                draw it from
 *
 * Every request carries an id (`seq`, counting up in the child) and its
 * answer carries the same id back.  The child gives up on an answer after a
 * timeout; an answer that comes after that is still in the socket when the
 * next request is sent, so the child drops every answer whose id is not the
 * one it waits for (with the file that rode along), instead of handing the
 * next request, maybe an anonymous one, the answer to a token holder's.
 *
 * Every request carries its caller: the bearer token the HTTP client
 * presented (`auth`, empty for an anonymous one).  The dashboard holds only
 * the token's SHA-256 (config_write_restricted), so it cannot make one up;
 * bugbridged checks the token itself and decides from it what the request
 * may have: a private job's logs only for the token holder while [tracker]
 * private_bugs = test, a job queued only for the token holder.  A
 * dashboard taken over gets what an anonymous client gets, and the tokens
 * of the requests that pass through it while it is.
 */
#ifndef BB_PRIVSEP_H
#define BB_PRIVSEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "buf.h"
#include "db.h"

enum ps_type {
	PS_READY = 1, PS_JOB_ADD, PS_LOG_OPEN, PS_LOG_LIST, PS_ARTIFACT_OPEN, PS_SYNC, PS_RENDER,
};

#define PS_NAME_MAX 136
#define PS_TOKEN_MAX 72
#define PS_TEXT_MAX 8192
#define PS_AUTH_MAX 256		/* a longer presented token is no token */
#define PS_PATH_MAX 1032	/* http.c takes paths of at most 1024 bytes */
#define PS_ARGS_MAX 2048

/* child -> parent */
struct ps_msg {
	uint32_t type;
	uint64_t seq;			/* the request's id, echoed in its answer */
	uint32_t kind;			/* PS_JOB_ADD: enum ps_kind */
	int64_t bug_id, candidate_id;	/* PS_JOB_ADD: 0 if not given */
	int64_t job_id;			/* PS_LOG_* */
	int32_t patch_count;		/* PS_JOB_ADD */
	uint32_t with_baseline;		/* PS_JOB_ADD: 0 or 1 */
	char name[PS_NAME_MAX];		/* PS_LOG_OPEN, PS_ARTIFACT_OPEN: a file name */
	char token[PS_TOKEN_MAX];	/* PS_ARTIFACT_OPEN: 64 hex digits */
	char auth[PS_AUTH_MAX];		/* the caller: its bearer token, "" anonymous */
	char method[8];			/* PS_RENDER: GET or HEAD */
	char path[PS_PATH_MAX];		/* PS_RENDER */
	char args[PS_ARGS_MAX];		/* PS_RENDER: the query, "name\0value\0"... */
	uint32_t args_len;		/* PS_RENDER: bytes of args used */
};

enum ps_kind { PS_KIND_TEST, PS_KIND_RETEST, PS_KIND_BISECT };

/* parent -> child */
struct ps_reply {
	uint32_t type;			/* the request's */
	uint64_t seq;			/* the request's */
	int32_t status;			/* the HTTP status to answer with */
	int64_t id;			/* PS_JOB_ADD: the new job */
	uint64_t size;			/* PS_LOG_OPEN, PS_RENDER: bytes; the file rides along */
	char text[PS_TEXT_MAX];		/* an error; PS_LOG_LIST: names, one per line; */
					/* PS_RENDER: the content type, then headers, a line each */
};

/* --- privsep.c: the dashboard's side ------------------------------------ */

/* Use fd (the child's end) for every request from now on. */
void privsep_client_init(int fd);
/*
 * The caller of this thread's requests from now on: the bearer token the
 * dashboard accepted (NULL: anonymous).  privsep_call() puts it in every
 * request's `auth`; http.c sets it for each request it dispatches.
 */
void privsep_caller(const char *bearer);
/* Tell the parent the dashboard serves. */
int privsep_ready(void);
/*
 * One request, one answer (requests from several threads take turns).
 * *fd gets a file passed along (-1 if none; pass NULL where none may come).
 * -1 when the parent could not be asked, did not answer in time or
 * answered nonsense (logged).  m->seq is set here.
 */
int privsep_call(struct ps_msg *m, struct ps_reply *r, int *fd);
/* PS_LOG_LIST: the names into *names (free with job_logs_free); 0 or -1. */
int privsep_log_list(int64_t job_id, char ***names, int *n);
/* PS_SYNC: bring the dashboard's database up to date; 0 or -1 (logged). */
int privsep_sync(void);

struct http_request;
struct http_response;
/* privsep_render.c: PS_RENDER of req into resp; 0, or -1 (logged: the caller answers 500). */
int privsep_render(struct http_request *req, struct http_response *resp);

/* --- privsep_serve.c: bugbridged's side --------------------------------- */

struct web_export;

/* What bugbridged answers with. */
struct privsep_server {
	struct db *db;			/* its own connection: jobs, logs, artifacts */
	struct db *full;		/* read-only, unfiltered: the token holder's pages */
	struct web_export *exp;		/* the dashboard's database */
};

/*
 * Answer one message from sock.  1 answered (or dropped a bad one:
 * logged), 0 the child is gone (EOF), -1 the socket failed.  *ready is set
 * by PS_READY.
 */
int privsep_serve(int sock, struct privsep_server *s, bool *ready);
/*
 * Answer m (checked) into r; the file that goes with the answer, or -1.
 * privsep_serve() uses it, and so does a page bugbridged draws itself.
 */
int privsep_answer(struct privsep_server *s, const struct ps_msg *m, struct ps_reply *r);
/* Is m's caller the token holder ([web] token)? */
bool privsep_token_holder(const struct ps_msg *m);
/*
 * This thread's requests (privsep_call) are answered here, by s, not asked
 * over a socket: for the pages bugbridged draws itself.  NULL: asked again.
 */
void privsep_local(struct privsep_server *s);
/* privsep_render.c: PS_RENDER, in bugbridged; the page's file, or -1. */
int privsep_render_answer(struct privsep_server *s, const struct ps_msg *m,
			  struct ps_reply *r);

/* --- privsep_export.c: the dashboard's database, bugbridged's side ------ */

/* [db] path with "-web" after it. */
void web_export_path(struct buf *out);
/* Make it afresh from what anyone may see of [db] path; NULL with err. */
struct web_export *web_export_open(struct buf *err);
/* Bring it up to date: copy what changed since.  0, or -1 (logged). */
int web_export_sync(struct web_export *x);
void web_export_close(struct web_export *x);

/*
 * artifacts.c, for bugbridged: the artifact `name` of a live `token`,
 * opened; its size in *size.  -1 when there is none (or the token or name
 * is malformed), -2 on a database error.
 */
int artifact_open(struct db *db, const char *token, const char *name, uint64_t *size);

#endif
