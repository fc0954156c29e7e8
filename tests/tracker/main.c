/*
 * bz-standin: command line and the libmicrohttpd glue.
 *
 * Every answer goes out through a content-reader callback of unknown size,
 * so that HTTP/1.1 answers are chunked like Apache's, and so that the
 * misbehaviour switches can cut a body short, stream an oversized one, or
 * (for "drop after committing a comment") close the socket without a byte.
 */
#include "standin.h"
#include "xalloc.h"
#include "log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SA_MAX_UPLOAD (64u << 20)

struct sa_conn {
	struct buf upload;
	size_t uri_len;		/* the raw request-target, query included */
	bool started;
};

/* Apache's LimitRequestLine: a longer request line is 414 before Bugzilla. */
#define SA_MAX_REQUEST_LINE 8190

struct sa_out {
	char *data;
	size_t len;
	size_t limit;		/* bytes to send before failing (truncate) */
	bool cut;		/* close the connection after limit bytes */
	long pad;		/* oversize: bytes of padding to stream */
};

static const char oversize_head[] = "{\"bugs\":[],\"padding\":\"";
static const char oversize_tail[] = "\"}";

static ssize_t out_read(void *cls, uint64_t pos, char *dst, size_t max)
{
	struct sa_out *o = cls;
	size_t n;

	if (o->pad > 0) {
		size_t head = sizeof(oversize_head) - 1;
		size_t total = head + (size_t)o->pad + sizeof(oversize_tail) - 1;

		if (pos >= total)
			return MHD_CONTENT_READER_END_OF_STREAM;
		for (n = 0; n < max && pos + n < total; n++) {
			uint64_t p = pos + n;
			if (p < head)
				dst[n] = oversize_head[p];
			else if (p < head + (size_t)o->pad)
				dst[n] = 'x';
			else
				dst[n] = oversize_tail[p - head - o->pad];
		}
		return n;
	}
	if (pos >= o->limit)
		return o->cut ? MHD_CONTENT_READER_END_WITH_ERROR
			      : MHD_CONTENT_READER_END_OF_STREAM;
	n = o->limit - pos;
	if (n > max)
		n = max;
	memcpy(dst, o->data + pos, n);
	return n;
}

static void out_free(void *cls)
{
	struct sa_out *o = cls;

	free(o->data);
	free(o);
}

/* A 22-character tag like Bugzilla's base64 MD5, from two FNV-1a hashes. */
static void etag_of(const char *data, size_t len, char out[32])
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint64_t h1 = 0xcbf29ce484222325ULL, h2 = 0x84222325cbf29ce4ULL;

	for (size_t i = 0; i < len; i++) {
		h1 = (h1 ^ (unsigned char)data[i]) * 0x100000001b3ULL;
		h2 = (h2 ^ (unsigned char)data[i]) * 0x100000001b3ULL + 7;
	}
	for (int i = 0; i < 22; i++) {
		uint64_t *h = i < 11 ? &h1 : &h2;
		out[i] = b64[*h & 63];
		*h >>= 6;
	}
	out[22] = '\0';
}

static void add_common_headers(struct MHD_Response *resp, const char *type)
{
	MHD_add_response_header(resp, "Content-Type", type);
	MHD_add_response_header(resp, "Access-Control-Allow-Headers",
				"origin, content-type, accept, x-requested-with");
	MHD_add_response_header(resp, "Access-Control-Allow-Origin", "*");
	MHD_add_response_header(resp, "X-content-type-options", "nosniff");
	MHD_add_response_header(resp, "X-frame-options", "SAMEORIGIN");
	MHD_add_response_header(resp, "X-xss-protection", "1; mode=block");
}

/* Queue body (ownership taken) with status; limit < len cuts it short. */
static enum MHD_Result send_body(struct MHD_Connection *c, int status, char *data,
				 size_t len, const char *type, bool truncate,
				 bool anonymous)
{
	struct sa_out *o = xcalloc(1, sizeof(*o));
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char etag[32];

	o->data = data;
	o->len = len;
	o->limit = truncate ? len / 2 : len;
	o->cut = truncate;
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, out_read,
						 o, out_free);
	if (!resp) {
		out_free(o);
		return MHD_NO;
	}
	add_common_headers(resp, type);
	etag_of(data, len, etag);
	MHD_add_response_header(resp, "ETag", etag);
	if (anonymous)
		MHD_add_response_header(resp, "Set-Cookie",
			"Bugzilla_login_request_cookie=standin0; path=/; HttpOnly");
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* Does If-None-Match name etag?  (quotes and a W/ prefix do not matter) */
static bool etag_matches(struct MHD_Connection *c, const char *etag)
{
	const char *inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_IF_NONE_MATCH);
	size_t n = strlen(etag);

	while (inm && *inm) {
		while (*inm == ' ' || *inm == ',')
			inm++;
		if (!strncmp(inm, "W/", 2))
			inm += 2;
		if (*inm == '"')
			inm++;
		if (!strncmp(inm, etag, n) && strchr("\", ,", inm[n]))
			return true;
		inm = strchr(inm, ',');
	}
	return false;
}

/* Bugzilla answers 304 to a GET whose If-None-Match has the answer's ETag. */
static enum MHD_Result send_not_modified(struct MHD_Connection *c, const char *etag)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(0, NULL,
							MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "ETag", etag);
	ret = MHD_queue_response(c, MHD_HTTP_NOT_MODIFIED, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result send_json(struct MHD_Connection *c, int status,
				 struct buf *b, bool truncate, bool anonymous)
{
	size_t len;
	char *data = buf_detach(b, &len);

	return send_body(c, status, data, len, "application/json; charset=UTF-8",
			 truncate, anonymous);
}

static enum MHD_Result send_oversize(struct MHD_Connection *c, long bytes)
{
	struct sa_out *o = xcalloc(1, sizeof(*o));
	struct MHD_Response *resp;
	enum MHD_Result ret;

	o->pad = bytes > 0 ? bytes : 1;
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 65536, out_read,
						 o, out_free);
	if (!resp) {
		out_free(o);
		return MHD_NO;
	}
	add_common_headers(resp, "application/json; charset=UTF-8");
	MHD_add_response_header(resp, "ETag", "oversizeoversizeoversiz");
	ret = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* What Apache in front of a broken Bugzilla sends: an HTML page. */
static enum MHD_Result send_failure(struct MHD_Connection *c, int status,
				    int retry_after)
{
	struct buf b = BUF_INIT;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t len;
	char *data;

	const char *why = status == 404 ? "The requested URL was not found on this server." :
			  status == 414 ? "The requested URL's length exceeds the capacity "
					  "limit for this server." :
			  status == 413 ? "The request body is too large." :
			  "The stand-in tracker was told to fail this request.";

	buf_addf(&b, "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n"
		 "<html><head>\n<title>%d Error</title>\n</head><body>\n"
		 "<h1>Error %d</h1>\n<p>%s</p>\n</body></html>\n", status, status, why);
	data = buf_detach(&b, &len);
	resp = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(data);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", "text/html; charset=iso-8859-1");
	if (retry_after >= 0) {
		char ra[32];
		snprintf(ra, sizeof(ra), "%d", retry_after);
		MHD_add_response_header(resp, "Retry-After", ra);
	}
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind,
				   const char *key, const char *value)
{
	struct json_object *q = cls, *old, *arr;

	(void)kind;
	if (!key)
		return MHD_YES;
	if (!value)
		value = "";
	if (!json_object_object_get_ex(q, key, &old)) {
		json_object_object_add(q, key, json_object_new_string(value));
		return MHD_YES;
	}
	if (json_object_is_type(old, json_type_array)) {
		json_object_array_add(old, json_object_new_string(value));
		return MHD_YES;
	}
	arr = json_object_new_array();
	json_object_array_add(arr, json_object_get(old));
	json_object_array_add(arr, json_object_new_string(value));
	json_object_object_add(q, key, arr);
	return MHD_YES;
}

static bool is_comment_post(const char *method, const char *url)
{
	size_t n = strlen(url);

	return !strcmp(method, "POST") && !strncmp(url, "/rest/bug/", 10) &&
	       n > 18 && !strcmp(url + n - 8, "/comment");
}

static enum MHD_Result handle_control(struct standin *st, struct MHD_Connection *c,
				      const char *method, const char *url,
				      struct json_object *query)
{
	struct buf body = BUF_INIT;
	int status = 200;
	size_t len;
	char *data;

	pthread_mutex_lock(&st->lock);
	sa_control(st, method, url, query, &status, &body);
	pthread_mutex_unlock(&st->lock);
	data = buf_detach(&body, &len);
	return send_body(c, status, data, len, "application/json; charset=UTF-8",
			 false, false);
}

/* Run the REST request under the lock; fills *status and out. */
static void handle_rest(struct standin *st, struct MHD_Connection *c,
			const char *method, const char *url,
			struct json_object *query, struct buf *upload,
			int *status, struct buf *out, bool *anonymous)
{
	struct sa_req r = { 0 };
	const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_CONTENT_TYPE);

	r.st = st;
	r.method = method;
	r.path = url + strlen("/rest");
	r.params = json_object_get(query);
	r.now = time(NULL);
	pthread_mutex_lock(&st->lock);
	if (sa_parse_body(&r, type, upload->ptr, upload->len) == 0 &&
	    sa_authenticate(&r) == 0)
		sa_dispatch(&r);
	pthread_mutex_unlock(&st->lock);
	if (!r.reply)
		sa_error(&r, 32610, "The stand-in could not answer this request.");
	*status = r.status;
	*anonymous = r.user.id == 0;
	buf_addstr(out, json_object_to_json_string_ext(r.reply,
		   JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(r.reply);
	json_object_put(r.params);
	json_object_put(r.inc);
	json_object_put(r.exc);
}

/* The answers that replace Bugzilla's: armed faults, and 404 off /rest/. */
static enum MHD_Result answer_fault(struct MHD_Connection *c, const struct sa_plan *plan,
				    struct json_object *entry)
{
	struct buf out = BUF_INIT;

	if (plan->fail_status) {
		sa_log_status(entry, plan->fail_status);
		return send_failure(c, plan->fail_status, plan->retry_after);
	}
	if (plan->malformed) {
		sa_log_status(entry, 200);
		buf_addstr(&out, "{\"bugs\":[{\"id\":9370,\"summary\":\"v2.6.24-rc2");
		return send_json(c, 200, &out, false, false);
	}
	if (plan->oversize) {
		sa_log_status(entry, 200);
		return send_oversize(c, plan->oversize_bytes);
	}
	/* what Apache says for a path that is not Bugzilla's */
	sa_log_status(entry, 404);
	return send_failure(c, 404, -1);
}

static enum MHD_Result serve(struct standin *st, struct MHD_Connection *c,
			     const char *method, const char *url, struct buf *upload)
{
	struct json_object *query = json_object_new_object(), *entry;
	struct buf out = BUF_INIT;
	struct sa_plan plan;
	enum MHD_Result ret;
	int status = 200;
	bool anonymous = true;

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg, query);
	if (!strncmp(url, "/__control", 10)) {
		ret = handle_control(st, c, method, url, query);
		goto out;
	}
	pthread_mutex_lock(&st->lock);
	entry = sa_log_request(st, method, url, query);
	sa_faults_next(st, is_comment_post(method, url), &plan);
	pthread_mutex_unlock(&st->lock);

	/* A slow server: by default the request waits before it is handled, so a
	 * write lands late; with commit_first the write lands at once and only
	 * the answer is late.  Either way a client that timed out must check
	 * before it re-sends. */
	if (plan.delay_ms > 0 && !plan.commit_first)
		usleep((useconds_t)plan.delay_ms * 1000);
	if (!plan.fail_status && !plan.malformed && !plan.oversize &&
	    !strncmp(url, "/rest/", 6))
		handle_rest(st, c, method, url, query, upload, &status, &out, &anonymous);
	if (plan.delay_ms > 0 && plan.commit_first)
		usleep((useconds_t)plan.delay_ms * 1000);
	if (plan.fail_status || plan.malformed || plan.oversize ||
	    strncmp(url, "/rest/", 6)) {
		ret = answer_fault(c, &plan, entry);
		goto out;
	}
	if (plan.drop_after_comment && status == 201) {
		pthread_mutex_lock(&st->lock);
		plan.drop_after_comment = sa_faults_take_drop(st);
		pthread_mutex_unlock(&st->lock);
	}
	if (plan.drop_after_comment && status == 201) {
		/* The comment is committed; the client hears nothing. */
		sa_log_status(entry, 0);
		ret = MHD_NO;
		goto out;
	}
	if (!strcmp(method, "GET") && status == 200 && !plan.truncate) {
		char etag[32];
		etag_of(out.ptr, out.len, etag);
		if (etag_matches(c, etag)) {
			sa_log_status(entry, 304);
			ret = send_not_modified(c, etag);
			goto out;
		}
	}
	sa_log_status(entry, status);
	ret = send_json(c, status, &out, plan.truncate, anonymous);
out:
	buf_release(&out);
	json_object_put(query);
	return ret;
}

/* Log a request refused before it was parsed (its query is not shown). */
static void log_rejected(struct standin *st, const char *method, const char *url,
			 int status)
{
	struct json_object *none = json_object_new_object();

	pthread_mutex_lock(&st->lock);
	sa_log_status(sa_log_request(st, method, url, none), status);
	pthread_mutex_unlock(&st->lock);
	json_object_put(none);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_size, void **con_cls)
{
	struct sa_conn *conn = *con_cls;

	(void)version;
	if (!conn)
		return MHD_NO;
	if (!conn->started) {
		conn->started = true;
		if (strlen(method) + 1 + conn->uri_len + 9 > SA_MAX_REQUEST_LINE) {
			log_rejected(cls, method, url, 414);
			return send_failure(c, 414, -1);
		}
		return MHD_YES;
	}
	if (*upload_size) {
		buf_add(&conn->upload, upload_data, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	if (conn->upload.overflow) {
		log_rejected(cls, method, url, 413);
		return send_failure(c, 413, -1);
	}
	return serve(cls, c, method, url, &conn->upload);
}

/* Called with the raw URI before the headers: the per-request state. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct sa_conn *conn = xcalloc(1, sizeof(*conn));

	(void)cls; (void)c;
	buf_init(&conn->upload, SA_MAX_UPLOAD);
	conn->uri_len = strlen(uri);
	return conn;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct sa_conn *conn = *con_cls;

	(void)cls; (void)c; (void)toe;
	if (!conn)
		return;
	buf_release(&conn->upload);
	free(conn);
	*con_cls = NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bz-standin --listen 127.0.0.1:PORT --db FILE "
		"[--seed FILE] [--reset] [--quiet]\n"
		"A stand-in Bugzilla 5.2 REST server for tests (see tests/tracker/README.md).\n"
		"  --listen ADDR:PORT  where to listen (port 0: any free port)\n"
		"  --db FILE           its SQLite state (created if missing)\n"
		"  --seed FILE         fixture loaded when the database is new\n"
		"  --reset             empty the database and load the seed again\n"
		"  --quiet             do not log each request on stderr\n");
}

static int parse_listen(const char *arg, struct sockaddr_in *sa)
{
	const char *colon = strrchr(arg, ':');
	char host[64];
	char *end;
	long port;

	if (!colon || (size_t)(colon - arg) >= sizeof(host))
		return -1;
	memcpy(host, arg, colon - arg);
	host[colon - arg] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port < 0 || port > 65535)
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

struct sa_opts {
	const char *listen, *db, *seed;
	bool reset;
	struct sockaddr_in addr;
};

/* Parse the command line; exits 0 for --help and 2 for a usage error. */
static void parse_args(int argc, char **argv, struct sa_opts *o)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "db", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "reset", no_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': o->listen = optarg; break;
		case 'd': o->db = optarg; break;
		case 's': o->seed = optarg; break;
		case 'r': o->reset = true; break;
		case 'q': log_set_level(LOG_WARN); break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (!o->listen || !o->db || optind != argc) {
		usage(stderr);
		exit(2);
	}
	if (parse_listen(o->listen, &o->addr)) {
		fprintf(stderr, "bz-standin: cannot parse --listen '%s'\n", o->listen);
		exit(2);
	}
}

static struct MHD_Daemon *start_daemon(struct standin *st, struct sockaddr_in *sa)
{
	return MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
				MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
				0, NULL, NULL, on_request, st,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)sa,
				MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(256 << 10),
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)120,
				MHD_OPTION_END);
}

int main(int argc, char **argv)
{
	struct sa_opts o = { 0 };
	struct standin st = { 0 };
	struct buf err = BUF_INIT;
	const union MHD_DaemonInfo *info;
	char host[INET_ADDRSTRLEN];
	struct MHD_Daemon *d;
	sigset_t sigs;
	int sig;

	parse_args(argc, argv, &o);
	pthread_mutex_init(&st.lock, NULL);
	st.requests = json_object_new_array();
	if (sa_store_open(&st, o.db, o.seed, o.reset, &err))
		die("%s", err.ptr);
	/* Block the stop signals in every thread; main waits for them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!(d = start_daemon(&st, &o.addr)))
		die("cannot listen on '%s': %s", o.listen, strerror(errno));
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	inet_ntop(AF_INET, &o.addr.sin_addr, host, sizeof(host));
	printf("listening on %s:%d\n", host, info ? info->port : ntohs(o.addr.sin_port));
	fflush(stdout);
	while (sigwait(&sigs, &sig) == 0 && sig != SIGINT && sig != SIGTERM)
		;
	MHD_stop_daemon(d);
	db_close(&st.db);
	json_object_put(st.requests);
	pthread_mutex_destroy(&st.lock);
	buf_release(&err);
	return 0;
}
