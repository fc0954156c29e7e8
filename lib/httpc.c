/*
 * httpc: libcurl wrapper with timeouts, a body cap and retries.  See httpc.h.
 *
 * One attempt is one curl_easy_perform on the client's handle; the handle
 * is reset before each attempt (curl_easy_reset keeps the connection cache,
 * so a poll of many bugs reuses one TCP connection).  Retrying lives in
 * httpc_do(), around attempt(); the sleep between tries checks the stop flag
 * every 100 ms so SIGTERM is not held up by a long Retry-After.
 */
#include "httpc.h"
#include "log.h"
#include "redact.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* A Retry-After longer than this is the server asking us to go away: give up. */
#define HTTPC_MAX_RETRY_AFTER 300

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
	srandom(time(NULL) ^ getpid());
}

int httpc_init(struct httpc *c, const struct httpc_opts *opts, struct buf *err)
{
	pthread_once(&global_once, global_init);
	memset(c, 0, sizeof(*c));
	if (global_rc != CURLE_OK) {
		buf_addf(err, "cannot initialise libcurl: %s", curl_easy_strerror(global_rc));
		return -1;
	}
	c->curl = curl_easy_init();
	if (!c->curl) {
		buf_addstr(err, "cannot initialise libcurl: out of memory");
		return -1;
	}
	c->opts = *opts;
	if (c->opts.connect_timeout <= 0)
		c->opts.connect_timeout = 10;
	if (c->opts.timeout <= 0)
		c->opts.timeout = 60;
	if (c->opts.retries < 0)
		c->opts.retries = 0;
	return 0;
}

void httpc_release(struct httpc *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	c->curl = NULL;
}

void httpc_response_release(struct httpc_response *resp)
{
	buf_release(&resp->body);
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct httpc_response *resp = arg;

	if (buf_add(&resp->body, data, size * n))
		return 0;	/* over the cap: curl stops with a write error */
	return size * n;
}

static long parse_retry_after(const char *v)
{
	char *end;
	long secs = strtol(v, &end, 10);
	time_t when;

	if (end != v && (*end == '\0' || *end == '\r' || *end == '\n' || *end == ' '))
		return secs < 0 ? 0 : secs;
	when = curl_getdate(v, NULL);
	if (when < 0)
		return -1;
	return when > time(NULL) ? (long)(when - time(NULL)) : 0;
}

static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
	struct httpc_response *resp = arg;
	size_t len = size * n, vlen;
	const char *colon = memchr(data, ':', len), *v;
	char value[128];

	/* a new status line (redirect, 100 Continue): forget earlier headers */
	if (len > 5 && !strncmp(data, "HTTP/", 5)) {
		resp->retry_after = -1;
		resp->date = 0;
		resp->content_type[0] = '\0';
		return len;
	}
	if (!colon)
		return len;
	v = colon + 1;
	while (v < data + len && (*v == ' ' || *v == '\t'))
		v++;
	vlen = data + len - v;
	while (vlen && (v[vlen - 1] == '\r' || v[vlen - 1] == '\n' || v[vlen - 1] == ' '))
		vlen--;
	if (vlen >= sizeof(value))
		vlen = sizeof(value) - 1;
	memcpy(value, v, vlen);
	value[vlen] = '\0';
	if (colon - data == 11 && !strncasecmp(data, "Retry-After", 11))
		resp->retry_after = parse_retry_after(value);
	else if (colon - data == 4 && !strncasecmp(data, "Date", 4))
		resp->date = curl_getdate(value, NULL) > 0 ? curl_getdate(value, NULL) : 0;
	else if (colon - data == 12 && !strncasecmp(data, "Content-Type", 12))
		memcpy(resp->content_type, value, vlen + 1);
	return len;
}

static enum httpc_fail classify(CURLcode rc, const struct httpc_response *resp)
{
	switch (rc) {
	case CURLE_OK:
		return HTTPC_FAIL_NONE;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return HTTPC_FAIL_CONNECT;
	case CURLE_OPERATION_TIMEDOUT:
		return HTTPC_FAIL_TIMEOUT;
	case CURLE_FILESIZE_EXCEEDED:
		return HTTPC_FAIL_TOO_BIG;
	case CURLE_WRITE_ERROR:
		return resp->body.overflow ? HTTPC_FAIL_TOO_BIG : HTTPC_FAIL_OTHER;
	case CURLE_PARTIAL_FILE:
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_HTTP2_STREAM:
	case CURLE_BAD_CONTENT_ENCODING:
		return HTTPC_FAIL_TRUNCATED;
	default:
		return HTTPC_FAIL_OTHER;
	}
}

static void describe(struct buf *err, const char *method, const char *url,
		     CURLcode rc, const struct httpc_response *resp, const struct httpc_opts *o)
{
	struct buf safe = BUF_INIT;

	buf_reset(err);
	buf_addf(err, "cannot %s '%s': ", method, redact_url(&safe, url));
	switch (resp->fail) {
	case HTTPC_FAIL_TOO_BIG:
		buf_addf(err, "response larger than %zu bytes (see max_response)",
			 o->max_response);
		break;
	case HTTPC_FAIL_TIMEOUT:
		buf_addf(err, "timed out (connect %lds, total %lds)",
			 o->connect_timeout, o->timeout);
		break;
	case HTTPC_FAIL_TRUNCATED:
		buf_addf(err, "connection closed before the whole answer arrived (%s)",
			 curl_easy_strerror(rc));
		break;
	default:
		buf_addstr(err, curl_easy_strerror(rc));
		break;
	}
	if (resp->attempts > 1)
		buf_addf(err, " after %d attempts", resp->attempts);
	redact_buf(err);
	buf_release(&safe);
}

static struct curl_slist *build_headers(const struct httpc_request *req)
{
	struct curl_slist *list = NULL, *next;
	struct buf ct = BUF_INIT;

	list = curl_slist_append(list, "Accept: application/json");
	/* no "Expect: 100-continue" pause on larger POST bodies */
	if (list && (next = curl_slist_append(list, "Expect:")))
		list = next;
	if (list && req->body) {
		buf_addf(&ct, "Content-Type: %s",
			 req->content_type ? req->content_type : "application/json");
		if ((next = curl_slist_append(list, ct.ptr)))
			list = next;
	}
	for (int i = 0; list && req->headers && req->headers[i]; i++)
		if ((next = curl_slist_append(list, req->headers[i])))
			list = next;
	buf_release(&ct);
	return list;
}

/* One try.  Returns the curl result; resp has status, body, headers. */
static CURLcode attempt(struct httpc *c, const struct httpc_request *req,
			struct httpc_response *resp)
{
	const char *method = req->method ? req->method : "GET";
	struct curl_slist *headers = build_headers(req);
	CURL *h = c->curl;
	CURLcode rc;

	buf_release(&resp->body);
	buf_init(&resp->body, c->opts.max_response);
	resp->status = 0;
	resp->retry_after = -1;
	resp->date = 0;
	resp->content_type[0] = '\0';
	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, req->url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, c->opts.connect_timeout);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, c->opts.timeout);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "bugbridge/0.1");
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, resp);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, resp);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	if (c->opts.max_response)
		curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE,
				 (curl_off_t)c->opts.max_response);
	if (strcmp(method, "GET"))
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	if (req->body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
	}
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status);
	resp->attempts++;
	c->requests++;
	resp->fail = classify(rc, resp);
	if (rc != CURLE_OK)
		resp->status = 0;
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(headers);
	return rc;
}

bool httpc_retryable(const struct httpc_response *resp)
{
	if (resp->fail == HTTPC_FAIL_TOO_BIG)
		return false;
	if (resp->fail != HTTPC_FAIL_NONE)
		return true;
	return resp->status >= 500 || resp->status == 429;
}

long httpc_backoff_ms(long backoff_ms, int n)
{
	long delay = backoff_ms > 0 ? backoff_ms : 1;

	for (int i = 0; i < n && delay < 60000; i++)
		delay *= 2;
	if (delay > 60000)
		delay = 60000;
	/* full jitter in the upper half: many clients never retry in lockstep */
	return delay / 2 + random() % (delay / 2 + 1);
}

/* Sleep ms milliseconds; false if stop was raised meanwhile. */
static bool nap(long ms, const volatile sig_atomic_t *stop)
{
	while (ms > 0) {
		long slice = ms < 100 ? ms : 100;
		struct timespec ts = { slice / 1000, (slice % 1000) * 1000000L };

		if (stop && *stop)
			return false;
		nanosleep(&ts, NULL);
		ms -= slice;
	}
	return !(stop && *stop);
}

int httpc_do(struct httpc *c, const struct httpc_request *req,
	    struct httpc_response *resp, struct buf *err)
{
	const char *method = req->method ? req->method : "GET";
	struct buf safe = BUF_INIT;
	CURLcode rc;

	resp->attempts = 0;
	for (int n = 0;; n++) {
		long wait;

		rc = attempt(c, req, resp);
		if (!req->retry || !httpc_retryable(resp) || n >= c->opts.retries)
			break;
		wait = httpc_backoff_ms(c->opts.backoff_ms, n);
		if (resp->retry_after > HTTPC_MAX_RETRY_AFTER)
			break;
		if (resp->retry_after >= 0 && resp->retry_after * 1000 > wait)
			wait = resp->retry_after * 1000;
		log_debug("http: %s %s gave %s; retry %d in %ld ms", method,
			  redact_url(&safe, req->url),
			  resp->fail ? curl_easy_strerror(rc) : "a retryable status",
			  n + 1, wait);
		if (!nap(wait, c->opts.stop))
			break;
	}
	buf_release(&safe);
	if (resp->fail == HTTPC_FAIL_NONE)
		return 0;
	describe(err, method, req->url, rc, resp, &c->opts);
	return -1;
}

static bool unreserved(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_' || ch == '~';
}

void httpc_query_add(struct buf *url, const char *name, const char *value)
{
	static const char hex[] = "0123456789ABCDEF";

	buf_addch(url, strchr(url->ptr, '?') ? '&' : '?');
	buf_addstr(url, name);
	buf_addch(url, '=');
	for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
		if (unreserved(*p)) {
			buf_addch(url, *p);
		} else {
			buf_addch(url, '%');
			buf_addch(url, hex[*p >> 4]);
			buf_addch(url, hex[*p & 15]);
		}
	}
}

void httpc_query_addf(struct buf *url, const char *name, const char *fmt, ...)
{
	struct buf v = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&v, fmt, ap);
	va_end(ap);
	httpc_query_add(url, name, v.ptr);
	buf_release(&v);
}
