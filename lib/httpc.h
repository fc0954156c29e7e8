/*
 * httpc: the one HTTP client (libcurl), for the tracker and the runner's
 * remote mode.
 *
 * A struct httpc owns one curl handle, so consecutive requests reuse
 * the connection.  Every request has a connect timeout and a total timeout,
 * a cap on the response body (an oversized reply fails cleanly with
 * HTTPC_FAIL_TOO_BIG instead of eating memory), and, when the request allows
 * it, retries with exponential backoff and jitter on timeouts, connection
 * errors, 5xx and 429 (a Retry-After header is honoured).  4xx answers are
 * never retried: they are the server's considered reply.
 *
 * Whether a request may be retried is the caller's decision (req.retry):
 * reads are safe to repeat; a write that timed out may have landed, so the
 * outbox re-checks the tracker before writing again instead.
 *
 * Messages put in err never contain a secret: URLs are passed through
 * redact_url() first.  The client is not thread-safe; one per thread.
 */
#ifndef BB_HTTPC_H
#define BB_HTTPC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include "buf.h"

struct httpc_opts {
	long connect_timeout;	/* seconds; 0: 10 */
	long timeout;		/* seconds for the whole request; 0: 60 */
	int retries;		/* extra attempts for retryable failures */
	long backoff_ms;	/* first retry delay, doubled each time, with jitter */
	size_t max_response;	/* largest body accepted, bytes; 0: unlimited */
	const volatile sig_atomic_t *stop;	/* raised: stop waiting to retry */
};

/* Why a request produced no usable HTTP answer. */
enum httpc_fail {
	HTTPC_FAIL_NONE,		/* got an answer: look at status */
	HTTPC_FAIL_CONNECT,	/* could not connect / resolve */
	HTTPC_FAIL_TIMEOUT,
	HTTPC_FAIL_TOO_BIG,	/* body passed max_response */
	HTTPC_FAIL_TRUNCATED,	/* connection closed mid-answer, or no answer */
	HTTPC_FAIL_OTHER,
};

struct httpc_request {
	const char *method;	/* "GET" (default), "POST", "PUT" */
	const char *url;
	const char *const *headers;	/* "Name: value", NULL-terminated, or NULL */
	const char *body;	/* NULL: no body */
	size_t body_len;
	const char *content_type;	/* of the body; NULL: application/json */
	bool retry;		/* may be repeated on timeouts, 5xx, 429 */
};

struct httpc_response {
	long status;		/* 0 when no answer came */
	enum httpc_fail fail;
	struct buf body;	/* capped at max_response */
	long retry_after;	/* seconds, -1: no header */
	long long date;		/* the server's Date header (Unix time), 0: none */
	char content_type[128];
	int attempts;		/* requests actually made */
};

struct httpc {
	void *curl;		/* CURL *, owned */
	struct httpc_opts opts;
	unsigned long requests;	/* requests made over the client's life */
};

#define HTTPC_RESPONSE_INIT { 0, HTTPC_FAIL_NONE, BUF_INIT, -1, 0, "", 0 }

/* -1 if libcurl cannot be set up (err says why). */
int httpc_init(struct httpc *c, const struct httpc_opts *opts, struct buf *err);
void httpc_release(struct httpc *c);

/*
 * Make the request (with retries if req->retry).  Returns 0 when an HTTP
 * answer arrived, whatever its status (resp->status, resp->body); -1 when
 * none did (resp->fail says why, err has "cannot GET 'url': why" with the
 * URL redacted).  A final 5xx after retries is returned as 0 with the
 * status: callers decide what a 500 means to them.  resp is reset first;
 * the caller releases resp->body.
 */
int httpc_do(struct httpc *c, const struct httpc_request *req,
	    struct httpc_response *resp, struct buf *err);

void httpc_response_release(struct httpc_response *resp);

/* Is this answer worth trying again (5xx, 429, or a transport failure)? */
bool httpc_retryable(const struct httpc_response *resp);

/*
 * Append "?name=value" or "&name=value" to url, percent-encoding value
 * (RFC 3986 unreserved characters kept).
 */
void httpc_query_add(struct buf *url, const char *name, const char *value);
void httpc_query_addf(struct buf *url, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The delay before retry number n (0-based): backoff * 2^n, jittered. */
long httpc_backoff_ms(long backoff_ms, int n);

#endif
