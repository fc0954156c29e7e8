/*
 * http: the dashboard's and API's server on libmicrohttpd.
 *
 * We bind the listening socket ourselves (so "address in use" is reported
 * as such) and hand it to libmicrohttpd, which runs a pool of [web] threads
 * with an internal poll loop.  Each request goes through one access
 * callback:
 *
 *   first call     look up the route, refuse too-large bodies early,
 *                  allocate per-request state (freed in on_completed)
 *   upload calls   append the body, up to the route's cap
 *   last call      run the handler, add the security headers, queue the
 *                  response
 *
 * The route table is the map of the web side, like cgit's cmd.c.  Each
 * worker thread keeps its own database connections in thread-specific
 * storage; their destructors close them when libmicrohttpd joins the pool.
 */
#include "http.h"
#include "xalloc.h"
#include "config.h"
#include "html.h"
#include "log.h"
#include "page.h"
#include "web.h"

#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>

enum route_match { ROUTE_EXACT, ROUTE_PREFIX };

struct route {
	const char *method;		/* NULL: any method */
	const char *path;
	enum route_match match;
	http_handler_fn fn;
	size_t max_body;
};

static const struct route routes[] = {
	{ "GET", "/", ROUTE_EXACT, page_overview, 0 },
	{ "GET", "/component/", ROUTE_PREFIX, page_component, 0 },
	{ "GET", "/product/", ROUTE_PREFIX, page_product, 0 },
	{ "GET", "/bug/", ROUTE_PREFIX, page_bug, 0 },
	{ "GET", "/job/", ROUTE_PREFIX, page_job, 0 },
	{ "GET", "/stats", ROUTE_EXACT, page_stats, 0 },
	{ "GET", "/digests", ROUTE_EXACT, page_digests, 0 },
	{ "GET", "/feed.atom", ROUTE_EXACT, page_feed, 0 },
	{ "GET", "/style.css", ROUTE_EXACT, page_style, 0 },
	{ "GET", "/healthz", ROUTE_EXACT, page_healthz, 0 },
	{ "GET", "/artifacts/", ROUTE_PREFIX, page_artifact, 0 },
	{ "GET", "/api/bugs", ROUTE_EXACT, api_bugs, 0 },
	{ "GET", "/api/bugs/", ROUTE_PREFIX, api_bug, 0 },
	{ "GET", "/api/jobs", ROUTE_EXACT, api_jobs, 0 },
	{ "POST", "/api/jobs", ROUTE_EXACT, api_job_create, HTTP_MAX_BODY },
	{ "GET", "/api/jobs/", ROUTE_PREFIX, api_job, 0 },
	{ "GET", "/api/stats", ROUTE_EXACT, api_stats, 0 },
	{ "GET", "/api/components", ROUTE_EXACT, api_components, 0 },
	{ "GET", "/api/digests", ROUTE_EXACT, api_digests, 0 },
	{ "GET", "/api/queue", ROUTE_EXACT, api_queue, 0 },
	{ NULL, "/api/runner/", ROUTE_PREFIX, api_runner, HTTP_RUNNER_MAX_BODY },
};

struct http_server {
	struct MHD_Daemon *daemon;
	int port;
};

/* Per-request state between the access callback's calls. */
struct request_state {
	const struct route *route;	/* NULL: no route for this path */
	bool method_ok;
	bool too_big;
	struct buf body;
};

static pthread_key_t read_db_key, write_db_key;
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void close_db(void *p)
{
	struct db *db = p;

	db_close(db);
	free(db);
}

static void make_keys(void)
{
	if (pthread_key_create(&read_db_key, close_db) ||
	    pthread_key_create(&write_db_key, close_db))
		die("http: cannot create thread keys");
}

static struct db *thread_db(pthread_key_t key, bool readonly)
{
	struct db *db = pthread_getspecific(key);
	struct buf err = BUF_INIT;

	if (db)
		return db;
	db = xcalloc(1, sizeof(*db));
	if (db_open(db, cfg_str("db.path"), &err) || db_check_version(db, &err)) {
		error("http: %s", err.ptr);
		goto fail;
	}
	/* Readers must never write, even through a bug in a page. */
	if (readonly && db_exec(db, "PRAGMA query_only = 1"))
		goto fail;
	pthread_setspecific(key, db);
	buf_release(&err);
	return db;
fail:
	db_close(db);
	free(db);
	buf_release(&err);
	return NULL;
}

struct db *http_write_db(struct http_request *req)
{
	(void)req;
	return thread_db(write_db_key, false);
}

const char *http_query(struct http_request *req, const char *name)
{
	if (!req->conn)
		return NULL;	/* http_route() without a connection: no arguments */
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

const char *http_header(struct http_request *req, const char *name)
{
	if (!req->conn)
		return NULL;
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

void http_set_header(struct http_response *resp, const char *name, const char *value)
{
	int i = resp->nheaders;

	if (i >= HTTP_MAX_HEADERS)
		return;
	resp->headers[i].name = xstrdup(name);
	resp->headers[i].value = xstrdup(value);
	resp->nheaders++;
}

int http_error(struct http_response *resp, int status, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	resp->status = status;
	buf_reset(&resp->body);
	if (resp->fd >= 0) {
		close(resp->fd);
		resp->fd = -1;
	}
	if (resp->is_api) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "error", json_object_new_string(msg.ptr));
		buf_addstr(&resp->body, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		buf_addch(&resp->body, '\n');
		json_object_put(o);
		resp->content_type = "application/json";
	} else {
		char title[16];

		snprintf(title, sizeof(title), "%d", status);
		page_begin(&resp->body, title, 0);
		buf_addstr(&resp->body, "<h1>");
		html_txt(&resp->body, title);
		buf_addstr(&resp->body, "</h1>\n<p class=\"error\">");
		html_txt(&resp->body, msg.ptr);
		buf_addstr(&resp->body, "</p>\n");
		page_end(&resp->body);
		resp->content_type = "text/html; charset=utf-8";
	}
	buf_release(&msg);
	return 0;
}

int http_parse_id(const char *s, sqlite3_int64 *id)
{
	sqlite3_int64 v = 0;

	if (!s || !*s || *s == '0' || strlen(s) > 15)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	*id = v;
	return 0;
}

/* Compare without an early exit, so timing does not leak the token. */
static bool token_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char diff = la != lb;

	for (size_t i = 0; i < la; i++)
		diff |= (unsigned char)a[i] ^ (unsigned char)b[i % (lb ? lb : 1)];
	return !diff && lb;
}

int http_require_token(struct http_request *req, struct http_response *resp)
{
	const char *auth = http_header(req, MHD_HTTP_HEADER_AUTHORIZATION);
	struct buf token = BUF_INIT, err = BUF_INIT;
	int ret = -1;

	if (!auth || strncasecmp(auth, "Bearer ", 7)) {
		http_set_header(resp, "WWW-Authenticate", "Bearer realm=\"bugbridge\"");
		http_error(resp, 401, "this endpoint needs a bearer token");
		goto out;
	}
	if (config_secret(cfg, "web.token", &token, &err)) {
		log_error("http: %s", err.ptr);
		http_error(resp, 403, "the server cannot read its token");
		goto out;
	}
	if (!token.len) {
		http_error(resp, 403, "writes are disabled: no [web] token configured");
		goto out;
	}
	if (!token_equal(auth + 7, token.ptr)) {
		log_warn("http: wrong token for %s %s", req->method, req->path);
		http_error(resp, 403, "wrong token");
		goto out;
	}
	ret = 0;
out:
	buf_release(&token);
	buf_release(&err);
	return ret;
}

static const struct route *find_route(const char *method, const char *path, bool *method_ok)
{
	const struct route *path_match = NULL;

	if (!strcmp(method, "HEAD"))
		method = "GET";
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		const struct route *r = &routes[i];
		size_t n = strlen(r->path);

		if (r->match == ROUTE_EXACT ? strcmp(path, r->path) : strncmp(path, r->path, n))
			continue;
		if (!r->method || !strcmp(r->method, method)) {
			*method_ok = true;
			return r;
		}
		if (!path_match)
			path_match = r;
	}
	*method_ok = false;
	return path_match;
}

static void add_security_headers(struct MHD_Response *r, bool is_file, bool cacheable)
{
	MHD_add_response_header(r, "Content-Security-Policy", is_file ?
		"default-src 'none'; sandbox" :
		"default-src 'self'; img-src 'self' data:; style-src 'self'; "
		"script-src 'none'; object-src 'none'; base-uri 'none'; "
		"form-action 'self'; frame-ancestors 'none'");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Referrer-Policy", "same-origin");
	if (!cacheable)
		MHD_add_response_header(r, "Cache-Control", "no-store");
}

static bool has_header(const struct http_response *resp, const char *name)
{
	for (int i = 0; i < resp->nheaders; i++)
		if (!strcasecmp(resp->headers[i].name, name))
			return true;
	return false;
}

static void response_release(struct http_response *resp)
{
	buf_release(&resp->body);
	if (resp->fd >= 0)
		close(resp->fd);
	for (int i = 0; i < resp->nheaders; i++) {
		free(resp->headers[i].name);
		free(resp->headers[i].value);
	}
}

static enum MHD_Result send_response(struct MHD_Connection *conn, struct http_response *resp)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	bool is_file = resp->fd >= 0;

	if (is_file) {
		r = MHD_create_response_from_fd(resp->fd_size, resp->fd);
		if (r)
			resp->fd = -1;	/* libmicrohttpd closes it now */
	} else {
		size_t len;
		char *body = buf_detach(&resp->body, &len);

		r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
		if (!r)
			free(body);
	}
	if (!r)
		return MHD_NO;
	add_security_headers(r, is_file, has_header(resp, "Cache-Control"));
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				resp->content_type ? resp->content_type :
				"text/html; charset=utf-8");
	for (int i = 0; i < resp->nheaders; i++)
		MHD_add_response_header(r, resp->headers[i].name, resp->headers[i].value);
	ret = MHD_queue_response(conn, (unsigned)resp->status, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * Reset every statement of the connection: a statement left mid-step
 * (an early return in a handler) would keep its read transaction open
 * and stop WAL checkpoints until the thread's next request.
 */
static void end_reads(struct db *db)
{
	sqlite3_stmt *st = NULL;

	while ((st = sqlite3_next_stmt(db->h, st)))
		sqlite3_reset(st);
}

/* Call the route's handler; shared by the server and http_route(). */
static void call_route(const struct route *route, bool method_ok, bool too_big,
		       struct http_request *req, struct http_response *resp)
{
	if (!route)
		return (void)http_error(resp, 404, "no such page: %s", req->path);
	if (!method_ok) {
		http_set_header(resp, "Allow", route->method);
		return (void)http_error(resp, 405, "method %s not allowed here", req->method);
	}
	if (too_big)
		return (void)http_error(resp, 413, "request body too large");
	req->rest = route->match == ROUTE_PREFIX ? req->path + strlen(route->path) : "";
	if (route->fn(req, resp)) {
		log_error("http: %s %s failed", req->method, req->path);
		http_error(resp, 500, "internal error");
	}
	end_reads(req->db);
}

static void dispatch(struct MHD_Connection *conn, const char *method, const char *url,
		     struct request_state *st, struct http_response *resp)
{
	struct http_request req = {
		.method = method, .path = url, .rest = "", .conn = conn,
		.body = st->body.ptr, .body_len = st->body.len,
	};

	if (st->route && st->method_ok && !st->too_big) {
		req.db = thread_db(read_db_key, true);
		if (!req.db)
			return (void)http_error(resp, 503, "database unavailable");
	}
	call_route(st->route, st->method_ok, st->too_big, &req, resp);
}

static bool valid_path(const char *url)
{
	/* Decoded paths with NUL-free bytes only; reject control characters. */
	if (url[0] != '/' || strlen(url) > 1024)
		return false;
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

int http_route(struct http_request *req, struct http_response *resp)
{
	const struct route *route = NULL;
	bool method_ok = false;
	size_t cap;

	resp->is_api = !strncmp(req->path, "/api/", 5);
	if (!valid_path(req->path))
		return http_error(resp, 400, "bad path");
	route = find_route(req->method, req->path, &method_ok);
	cap = route && method_ok ? route->max_body : 0;
	call_route(route, method_ok, req->body_len > cap, req, resp);
	return 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size,
				  void **con_cls)
{
	struct request_state *st = *con_cls;
	struct http_response resp = { .status = 200, .body = BUF_INIT, .fd = -1 };
	enum MHD_Result ret;

	(void)cls;
	(void)version;
	if (!st) {
		const char *len;
		size_t cap;

		st = xcalloc(1, sizeof(*st));
		*con_cls = st;
		if (valid_path(url))
			st->route = find_route(method, url, &st->method_ok);
		cap = st->route && st->method_ok ? st->route->max_body : 0;
		buf_init(&st->body, cap ? cap : 1);
		len = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						  MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (len && strtoull(len, NULL, 10) > (cap ? cap : 0))
			st->too_big = true;
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (!st->too_big && buf_add(&st->body, upload_data, *upload_data_size))
			st->too_big = true;
		*upload_data_size = 0;
		return MHD_YES;
	}
	resp.is_api = !strncmp(url, "/api/", 5);
	if (!valid_path(url))
		http_error(&resp, 400, "bad path");
	else
		dispatch(conn, method, url, st, &resp);
	ret = send_response(conn, &resp);
	response_release(&resp);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct request_state *st = *con_cls;

	(void)cls;
	(void)conn;
	(void)toe;
	if (!st)
		return;
	buf_release(&st->body);
	free(st);
	*con_cls = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct buf msg = BUF_INIT;

	(void)cls;
	buf_vaddf(&msg, fmt, ap);
	buf_trim(&msg);
	log_warn("http: %s", msg.ptr);
	buf_release(&msg);
}

/* Split "host:port", "[v6]:port" or ":port" (all addresses). */
static int split_listen(const char *listen_spec, char **host, char **port)
{
	const char *colon;

	if (listen_spec[0] == '[') {
		const char *end = strchr(listen_spec, ']');

		if (!end || end[1] != ':')
			return -1;
		*host = xstrndup(listen_spec + 1, (size_t)(end - listen_spec - 1));
		*port = xstrdup(end + 2);
	} else {
		colon = strrchr(listen_spec, ':');
		if (!colon)
			return -1;
		*host = colon == listen_spec ? NULL : xstrndup(listen_spec, (size_t)(colon - listen_spec));
		*port = xstrdup(colon + 1);
	}
	if (*host && (!strcmp(*host, "*") || !**host)) {
		free(*host);
		*host = NULL;
	}
	return **port ? 0 : -1;
}

static int open_listener(const char *listen_spec, struct buf *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res = NULL;
	char *host = NULL, *port = NULL;
	int fd = -1, one = 1, rc;

	if (split_listen(listen_spec, &host, &port)) {
		buf_addf(err, "bad [web] listen '%s': want host:port", listen_spec);
		goto out;
	}
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc) {
		buf_addf(err, "bad [web] listen '%s': %s", listen_spec, gai_strerror(rc));
		goto out;
	}
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
	if (fd < 0) {
		buf_addf(err, "cannot create socket: %s", strerror(errno));
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 128)) {
		buf_addf(err, "cannot listen on '%s': %s", listen_spec, strerror(errno));
		close(fd);
		fd = -1;
	}
out:
	if (res)
		freeaddrinfo(res);
	free(host);
	free(port);
	return fd;
}

struct http_server *http_start(struct buf *err)
{
	struct http_server *srv = NULL;
	unsigned threads = (unsigned)cfg_int("web.threads");
	const union MHD_DaemonInfo *info;
	int fd;

	pthread_once(&keys_once, make_keys);
	if (threads < 1 || threads > 256) {
		buf_addf(err, "bad [web] threads %u: want 1 to 256", threads);
		return NULL;
	}
	fd = open_listener(cfg_str("web.listen"), err);
	if (fd < 0)
		return NULL;
	srv = xcalloc(1, sizeof(*srv));
	srv->daemon = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG,
		0, NULL, NULL, on_request, NULL,
		MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
		MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_THREAD_POOL_SIZE, threads,
		MHD_OPTION_CONNECTION_TIMEOUT, 30u,
		MHD_OPTION_CONNECTION_LIMIT, 512u,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
		MHD_OPTION_END);
	if (!srv->daemon) {
		buf_addf(err, "cannot start the web server on '%s'", cfg_str("web.listen"));
		close(fd);
		free(srv);
		return NULL;
	}
	info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = info ? info->port : 0;
	log_info("http: dashboard on %s (port %d, %u threads)", cfg_str("web.listen"),
		 srv->port, threads);
	return srv;
}

void http_stop(struct http_server *srv)
{
	if (!srv)
		return;
	/* Joins the pool threads; their key destructors close their databases. */
	MHD_stop_daemon(srv->daemon);
	free(srv);
}
