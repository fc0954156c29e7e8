/*
 * http: the dashboard's and API's server on libmicrohttpd.
 *
 * It runs in the dashboard's own process (web_child.c), on a listening
 * socket bugbridged opened, with a pool of [web] threads and an internal
 * poll loop.  Each request goes through one access callback:
 *
 *   first call     look up the route; refuse, before a byte of the body is
 *                  read, a body over the route's limit (413) and a write
 *                  route without the right token (401/403); allocate
 *                  per-request state (freed in on_completed)
 *   upload calls   append the body, up to the route's cap
 *   last call      run the handler on this thread's public connection (or
 *                  the full one for a token holder while [tracker]
 *                  private_bugs = test: http_db.c), add the security
 *                  headers, queue the response
 *
 * So an anonymous caller can make the server hold no more than
 * libmicrohttpd's per-connection buffer, and at most [web] max_per_ip
 * connections per address.  The route table is the map of the web side,
 * like cgit's cmd.c.
 */
#include "http.h"
#include "xalloc.h"
#include "config.h"
#include "html.h"
#include "log.h"
#include "page.h"
#include "privacy.h"
#include "privsep.h"
#include "sha256.h"
#include "web.h"

#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

enum route_match { ROUTE_EXACT, ROUTE_PREFIX };

struct route {
	const char *method;		/* NULL: any method */
	const char *path;
	enum route_match match;
	http_handler_fn fn;
	size_t max_body;		/* larger bodies get 413 before they are read */
	bool write;			/* the token first: 401/403 before the body is read */
};

static const struct route routes[] = {
	{ "GET", "/", ROUTE_EXACT, page_overview, 0, false },
	{ "GET", "/component/", ROUTE_PREFIX, page_component, 0, false },
	{ "GET", "/product/", ROUTE_PREFIX, page_product, 0, false },
	{ "GET", "/bug/", ROUTE_PREFIX, page_bug, 0, false },
	{ "GET", "/job/", ROUTE_PREFIX, page_job, 0, false },
	{ "GET", "/stats", ROUTE_EXACT, page_stats, 0, false },
	{ "GET", "/queue", ROUTE_EXACT, page_queue, 0, false },
	{ "GET", "/digests", ROUTE_EXACT, page_digests, 0, false },
	{ "GET", "/feed.atom", ROUTE_EXACT, page_feed, 0, false },
	{ "GET", "/style.css", ROUTE_EXACT, page_style, 0, false },
	{ "GET", "/healthz", ROUTE_EXACT, page_healthz, 0, false },
	{ "GET", "/artifacts/", ROUTE_PREFIX, page_artifact, 0, false },
	{ "GET", "/api/bugs", ROUTE_EXACT, api_bugs, 0, false },
	{ "GET", "/api/bugs/", ROUTE_PREFIX, api_bug, 0, false },
	{ "GET", "/api/jobs", ROUTE_EXACT, api_jobs, 0, false },
	{ "POST", "/api/jobs", ROUTE_EXACT, api_job_create, HTTP_MAX_BODY, true },
	{ "GET", "/api/jobs/", ROUTE_PREFIX, api_job, 0, false },
	{ "GET", "/api/stats", ROUTE_EXACT, api_stats, 0, false },
	{ "GET", "/api/components", ROUTE_EXACT, api_components, 0, false },
	{ "GET", "/api/digests", ROUTE_EXACT, api_digests, 0, false },
	{ "GET", "/api/queue", ROUTE_EXACT, api_queue, 0, false },
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
	bool answered;			/* refused on the first call; the body is dropped */
	struct buf body;
};

const char *http_query(struct http_request *req, const char *name)
{
	/* http_route() without a connection: req->args, if any */
	for (size_t i = 0; !req->conn && i < req->args_len;) {
		const char *k = req->args + i, *v = memchr(k, '\0', req->args_len - i);
		const char *end = v ? memchr(v + 1, '\0', req->args_len - (size_t)(v + 1 - req->args)) : NULL;

		if (!end)
			break;
		if (!strcmp(k, name))
			return v + 1;
		i = (size_t)(end + 1 - req->args);
	}
	if (!req->conn)
		return NULL;
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

struct args_out {
	char *p;
	size_t cap, len;
	bool full;
};

static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *key,
			       const char *value)
{
	struct args_out *a = cls;
	size_t kl = strlen(key), vl = value ? strlen(value) : 0;

	(void)kind;
	if (a->len + kl + vl + 2 > a->cap) {
		a->full = true;
		return MHD_NO;
	}
	memcpy(a->p + a->len, key, kl + 1);
	memcpy(a->p + a->len + kl + 1, value ? value : "", vl + 1);
	a->len += kl + vl + 2;
	return MHD_YES;
}

long http_args(struct http_request *req, char *out, size_t cap)
{
	struct args_out a = { out, cap, 0, false };

	if (req->conn)
		MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND, add_arg, &a);
	return a.full ? -1 : (long)a.len;
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

static bool token_is_hash;

void http_token_hashed(void)
{
	token_is_hash = true;
}

/* The Authorization header's bearer token, or NULL. */
const char *http_bearer(struct http_request *req)
{
	const char *auth = http_header(req, MHD_HTTP_HEADER_AUTHORIZATION);

	return auth && !strncasecmp(auth, "Bearer ", 7) ? auth + 7 : NULL;
}

/* 0 right token, 1 none given, 2 wrong one, 3 no token configured (or unreadable). */
static int check_token(struct http_request *req)
{
	const char *given = http_bearer(req);
	struct buf token = BUF_INIT, err = BUF_INIT;
	char hex[SHA256_HEX_LEN], hashed[7 + SHA256_HEX_LEN];
	int ret;

	if (!given)
		return 1;
	if (token_is_hash) {
		sha256_hex(given, strlen(given), hex);
		snprintf(hashed, sizeof(hashed), "sha256:%s", hex);
		given = hashed;
	}
	if (config_secret(cfg, "web.token", &token, &err)) {
		log_error("http: %s", err.ptr);
		ret = 3;
	} else if (!token.len) {
		ret = 3;
	} else {
		ret = token_equal(given, token.ptr) ? 0 : 2;
	}
	buf_release(&token);
	buf_release(&err);
	return ret;
}

bool http_authenticated(struct http_request *req)
{
	return !check_token(req);
}

int http_require_token(struct http_request *req, struct http_response *resp)
{
	switch (check_token(req)) {
	case 0:
		return 0;
	case 1:
		http_set_header(resp, "WWW-Authenticate", "Bearer realm=\"bugbridge\"");
		http_error(resp, 401, "this endpoint needs a bearer token");
		return -1;
	case 2:
		log_warn("http: wrong token for %s %s", req->method, req->path);
		http_error(resp, 403, "wrong token");
		return -1;
	default:
		http_error(resp, 403, "writes are disabled: no [web] token configured");
		return -1;
	}
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
		req.authenticated = http_authenticated(&req);
		req.full = req.authenticated && !private_bugs_skipped();
		/* bugbridged checks the token again for whatever we ask of it (privsep.h) */
		privsep_caller(req.authenticated ? http_bearer(&req) : NULL);
		/* we hold no private row: bugbridged draws the token holder's pages */
		if (req.full && (!strcmp(method, "GET") || !strcmp(method, "HEAD"))) {
			if (privsep_render(&req, resp))
				http_error(resp, 500, "internal error");
			return;
		}
		req.db = http_db_get();
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

/*
 * The first call, before any of the body is read: a body over the route's
 * limit (or any body where there is no route, or not for this method), or
 * a write without the right token, is answered at once, and libmicrohttpd
 * then closes the connection instead of reading the body.  true when it
 * answered.
 */
static bool refuse_early(struct MHD_Connection *conn, const char *method, const char *url,
			 struct request_state *st)
{
	struct http_response resp = { .status = 200, .body = BUF_INIT, .fd = -1 };
	struct http_request req = { .method = method, .path = url, .rest = "", .conn = conn };
	const char *len = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *te = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_TRANSFER_ENCODING);
	size_t cap = st->route && st->method_ok ? st->route->max_body : 0;
	bool body = (len && strtoull(len, NULL, 10) > 0) || te;
	bool refused = true;

	resp.is_api = !strncmp(url, "/api/", 5);
	if (body && (!st->route || !st->method_ok || (len && strtoull(len, NULL, 10) > cap) ||
		     (te && !cap))) {
		st->too_big = true;
		if (!valid_path(url))
			http_error(&resp, 400, "bad path");
		else if (!st->route)
			http_error(&resp, 404, "no such page: %s", url);
		else if (!st->method_ok) {
			http_set_header(&resp, "Allow", st->route->method);
			http_error(&resp, 405, "method %s not allowed here", method);
		} else
			http_error(&resp, 413, "request body too large (at most %zu bytes here)", cap);
	} else if (st->route && st->method_ok && st->route->write) {
		refused = http_require_token(&req, &resp) != 0;
	} else {
		refused = false;
	}
	if (refused) {
		st->answered = true;
		if (send_response(conn, &resp) != MHD_YES)
			log_warn("http: cannot answer %s %s early", method, url);
	}
	response_release(&resp);
	return refused;
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
		size_t cap;

		st = xcalloc(1, sizeof(*st));
		*con_cls = st;
		if (valid_path(url))
			st->route = find_route(method, url, &st->method_ok);
		cap = st->route && st->method_ok ? st->route->max_body : 0;
		buf_init(&st->body, cap ? cap : 1);
		refuse_early(conn, method, url, st);
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (!st->too_big && !st->answered &&
		    buf_add(&st->body, upload_data, *upload_data_size))
			st->too_big = true;
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (st->answered)
		return MHD_YES;
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

/*
 * libmicrohttpd's complaints.  A refused connection (a limit reached) is
 * something any client can cause at will: logged once a minute at most,
 * with the count, so that a flood of connections does not fill the disk.
 */
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static time_t last;
	static unsigned long quiet;
	struct buf msg = BUF_INIT;
	time_t now = time(NULL);
	unsigned long skipped = 0;
	bool say = true;

	(void)cls;
	buf_vaddf(&msg, fmt, ap);
	buf_trim(&msg);
	if (strstr(msg.ptr, "limit")) {
		pthread_mutex_lock(&lock);
		say = now - last >= 60;
		if (say) {
			last = now;
			skipped = quiet;
			quiet = 0;
		} else {
			quiet++;
		}
		pthread_mutex_unlock(&lock);
	}
	if (say && skipped)
		log_warn("http: %s (and %lu more since the last such line)", msg.ptr, skipped);
	else if (say)
		log_warn("http: %s", msg.ptr);
	buf_release(&msg);
}

struct http_server *http_start(int listen_fd, struct buf *err)
{
	struct http_server *srv = NULL;
	unsigned threads = (unsigned)cfg_int("web.threads");
	long per_ip = cfg_int("web.max_per_ip");
	const union MHD_DaemonInfo *info;

	if (threads < 1 || threads > 256) {
		buf_addf(err, "bad [web] threads %u: want 1 to 256", threads);
		return NULL;
	}
	if (per_ip < 0 || per_ip > 100000) {
		buf_addf(err, "bad [web] max_per_ip %ld: want 0 (no limit) to 100000", per_ip);
		return NULL;
	}
	srv = xcalloc(1, sizeof(*srv));
	srv->daemon = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG,
		0, NULL, NULL, on_request, NULL,
		MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
		MHD_OPTION_LISTEN_SOCKET, listen_fd,
		MHD_OPTION_THREAD_POOL_SIZE, threads,
		MHD_OPTION_CONNECTION_TIMEOUT, 30u,
		MHD_OPTION_CONNECTION_LIMIT, 512u,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)per_ip,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
		MHD_OPTION_END);
	if (!srv->daemon) {
		buf_addf(err, "cannot start the web server on '%s'", cfg_str("web.listen"));
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
	/* joins the pool threads, closes the listening socket */
	MHD_stop_daemon(srv->daemon);
	free(srv);
}
