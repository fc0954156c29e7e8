/*
 * http: the dashboard's and API's request and response, and the helpers
 * every handler uses.  http.c owns libmicrohttpd; handlers (page_*.c,
 * api_*.c, feed.c) never see it.  They get a parsed request and fill in a
 * response:
 *
 *   int page_bug(struct http_request *req, struct http_response *resp)
 *   {
 *       ...
 *       if (!found)
 *           return http_error(resp, 404, "no bug %lld", id);
 *       buf_addstr(&resp->body, "...");	// content_type defaults to HTML
 *       return 0;
 *   }
 *
 * A handler returns 0 when resp holds the answer (an error page counts),
 * -1 on an internal failure (logged): the caller then answers 500 with a
 * short message and nothing from the failure.
 *
 * Routing (http.c, a table like cgit's cmd.c): a route matches the method
 * and either the exact path or a prefix; req->rest is the path after the
 * prefix ("9370" for "/bug/9370").  Every response carries the security
 * headers (CSP, nosniff, frame and referrer policy); handlers need not.
 *
 * Threads: libmicrohttpd runs handlers on a pool of [web] threads.  Each
 * thread owns one pair of read-only database connections (http_db.c):
 * req->db is the public one, on which private bugs and everything of them
 * do not exist, or, for a request with the API token while [tracker]
 * private_bugs = test, the full one.  Neither is shared, so handlers need
 * no locks.  Nothing here writes the database: the one write (POST
 * /api/jobs) is a message to bugbridged (privsep.h), and so are logs.
 *
 * Ownership: the request and everything in it belong to http.c and live
 * until the handler returns.  The response's body buf and fd (if set) are
 * released by http.c after sending.
 */
#ifndef BB_HTTP_H
#define BB_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <sqlite3.h>
#include "buf.h"
#include "db.h"

struct MHD_Connection;

struct http_request {
	const char *method;	/* "GET", "HEAD", "POST", ... (HEAD routes as GET) */
	const char *path;	/* decoded path, e.g. "/bug/9370" */
	const char *rest;	/* path after the matched route prefix ("" if exact) */
	const char *body;	/* request body, NUL-terminated ("" if none) */
	size_t body_len;
	struct db *db;		/* this thread's read-only connection (public or full) */
	bool authenticated;	/* carries the right API token */
	bool full;		/* db is the full connection: private bugs exist */
	struct MHD_Connection *conn;	/* for http_query/http_header only */
	const char *args;	/* without conn: the query, "name\0value\0"... */
	size_t args_len;
};

#define HTTP_MAX_HEADERS 4

struct http_response {
	int status;			/* default 200 */
	const char *content_type;	/* static string; default text/html */
	struct buf body;
	int fd;				/* >= 0: send fd_size bytes of this file instead of body */
	size_t fd_size;
	bool is_api;			/* errors as JSON (set for /api/ paths) */
	int nheaders;
	struct { char *name, *value; } headers[HTTP_MAX_HEADERS];
};

/* Handler type of the route table. */
typedef int (*http_handler_fn)(struct http_request *req, struct http_response *resp);

/* A query-string argument (decoded), or NULL. */
const char *http_query(struct http_request *req, const char *name);
/*
 * The query's arguments as "name\0value\0"... into out (at most cap
 * bytes); their length, or -1 when they do not fit.
 */
long http_args(struct http_request *req, char *out, size_t cap);
/* A request header, or NULL. */
const char *http_header(struct http_request *req, const char *name);
/* Does the request carry "Authorization: Bearer <the API token>"? */
bool http_authenticated(struct http_request *req);
/* The token of "Authorization: Bearer <token>", or NULL. */
const char *http_bearer(struct http_request *req);
/*
 * [web] token holds the token's SHA-256 ("sha256:<hex>", as the dashboard's
 * process gets it: config_write_restricted): a presented token is hashed
 * before it is compared.
 */
void http_token_hashed(void);

/* Add a response header (copied); ignored past HTTP_MAX_HEADERS. */
void http_set_header(struct http_response *resp, const char *name, const char *value);
/*
 * Make resp an error: status and a short message (HTML page, or
 * {"error": "..."} for the API).  The message must not contain secrets;
 * it is escaped.  Returns 0 so handlers can "return http_error(...)".
 */
int http_error(struct http_response *resp, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Check "Authorization: Bearer <token>" against [web] token/token_file.
 * Returns 0 if it matches.  Otherwise fills resp (401 without a token,
 * 403 with a wrong one or when no token is configured) and returns -1;
 * the handler then returns 0.
 */
int http_require_token(struct http_request *req, struct http_response *resp);

/*
 * Route one request without a connection (the fuzz target and tests): req
 * has method, path, body and db set and conn NULL, so the handler sees no
 * query arguments or headers.  Fills resp as the server would; returns 0.
 * The caller releases resp (body buf, fd, headers).
 */
int http_route(struct http_request *req, struct http_response *resp);

/* --- http.c: the server -------------------------------------------------- */

struct http_server;
/* Serve on listen_fd with [web] threads; the connections must be open (http_db_open). */
struct http_server *http_start(int listen_fd, struct buf *err);
/* Finish the requests in flight, stop the threads, close the socket; NULL is fine. */
void http_stop(struct http_server *srv);

/* --- http_db.c: the connections ------------------------------------------ */

/* Open n pairs of connections to [db] path (n: the worker threads). */
int http_db_open(int n, struct buf *err);
void http_db_close(void);
/*
 * This thread's connection (one is taken on its first use), the dashboard's
 * database brought up to date first (privsep_sync).
 */
struct db *http_db_get(void);
/* Shadow db's tables with the public_* views (TEMP views); for tests too. */
int http_db_public(struct db *db);
/*
 * The same TEMP views over the tables of the attached database `schema`
 * (a trusted name): temp.bugs is then what anyone may see of schema.bugs.
 * The dashboard's export is copied from them (privsep_export.c).
 */
int http_db_public_of(struct db *db, const char *schema);

/* Parse a positive decimal id that is the whole string; -1 if not. */
int http_parse_id(const char *s, sqlite3_int64 *id);

/* The largest body a write route takes (POST /api/jobs). */
#define HTTP_MAX_BODY (64 * 1024)

#endif
