/*
 * privsep_render: the token holder's pages, drawn by bugbridged.
 *
 * With [tracker] private_bugs = test, a request that carries the API token
 * may see private bugs.  The dashboard's process has none to show (its
 * database is an export of what anyone may see: privsep_export.c), so it
 * passes such a GET on (PS_RENDER: method, path, query, and the token as
 * the request's caller) and serves what comes back.  bugbridged checks the
 * token itself; only then does it route the request, on its own read-only
 * connection where private bugs exist, with the same handlers the
 * dashboard runs (http_route), and pass the page back as a file: a
 * memfd of the body, or the log file a handler opened.  A caller without
 * the token gets a 403 page.  Requests a handler makes of bugbridged
 * (logs) are answered in place (privsep_local).
 *
 * So the only untrusted text that reaches bugbridged's handlers comes from
 * a client that holds the token: one the operator trusts.
 */
#include "privsep.h"
#include "http.h"
#include "xalloc.h"
#include "log.h"
#include "privacy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The content types handlers set (static strings), so the dashboard can set the same. */
static const char *const types[] = {
	"text/html; charset=utf-8", "application/json", "text/plain; charset=utf-8",
	"application/atom+xml; charset=utf-8", "text/css", "application/octet-stream",
};

static const char *known_type(const char *t, size_t len)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i]) == len && !strncmp(types[i], t, len))
			return types[i];
	return "text/plain; charset=utf-8";
}

/* --- the dashboard's side --------------------------------------------- */

/* The answer's content type and headers (a line each) into resp. */
static void take_headers(const char *text, struct http_response *resp)
{
	const char *nl = strchr(text, '\n');

	resp->content_type = known_type(text, nl ? (size_t)(nl - text) : strlen(text));
	while (nl && *++nl) {
		const char *end = strchr(nl, '\n'), *colon = strstr(nl, ": ");
		char *name, *value;

		if (!end || !colon || colon > end)
			break;
		name = xstrndup(nl, (size_t)(colon - nl));
		value = xstrndup(colon + 2, (size_t)(end - colon - 2));
		http_set_header(resp, name, value);
		free(name);
		free(value);
		nl = end;
	}
}

int privsep_render(struct http_request *req, struct http_response *resp)
{
	struct ps_msg *m = xcalloc(1, sizeof(*m));
	struct ps_reply *r = xmalloc(sizeof(*r));
	long len = http_args(req, m->args, sizeof(m->args));
	int fd = -1, ret = -1;

	m->type = PS_RENDER;
	if (strlen(req->method) >= sizeof(m->method) || strlen(req->path) >= sizeof(m->path) ||
	    len < 0) {
		ret = http_error(resp, 414, "request too long");
		goto out;
	}
	memcpy(m->method, req->method, strlen(req->method) + 1);
	memcpy(m->path, req->path, strlen(req->path) + 1);
	m->args_len = (uint32_t)len;
	if (privsep_call(m, r, &fd))
		goto out;
	if (fd < 0) {
		log_error("http: bugbridged drew no page for %s %s", req->method, req->path);
		goto out;
	}
	resp->status = r->status;
	resp->fd = fd;
	resp->fd_size = (size_t)r->size;
	take_headers(r->text, resp);
	ret = 0;
out:
	free(m);
	free(r);
	return ret;
}

/* --- bugbridged's side ------------------------------------------------ */

/* body as a file to pass on: a memfd, at its start; -1 (logged) if not. */
static int body_file(const struct buf *body)
{
	int fd = memfd_create("bugbridge-page", MFD_CLOEXEC);

	if (fd < 0 || write_in_full(fd, body->ptr, body->len) ||
	    lseek(fd, 0, SEEK_SET) < 0) {
		log_error("http: cannot pass a page on: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The page for m, drawn on s->full (only for the token holder) into resp. */
static void draw(struct privsep_server *s, const struct ps_msg *m, struct http_response *resp)
{
	struct http_request req = {
		.method = m->method, .path = m->path, .rest = "", .db = s->full,
		.authenticated = true, .full = true, .args = m->args, .args_len = m->args_len,
	};

	if (!privsep_token_holder(m) || private_bugs_skipped()) {
		resp->is_api = !strncmp(m->path, "/api/", 5);
		http_error(resp, 403, "this page is drawn for the token holder only");
		return;
	}
	if (strcmp(m->method, "GET") && strcmp(m->method, "HEAD")) {
		http_error(resp, 405, "method %s not allowed here", m->method);
		return;
	}
	privsep_caller(m->auth);
	privsep_local(s);
	http_route(&req, resp);
	privsep_local(NULL);
	privsep_caller(NULL);
}

int privsep_render_answer(struct privsep_server *s, const struct ps_msg *m,
			  struct ps_reply *r)
{
	struct http_response resp = { .status = 200, .body = BUF_INIT, .fd = -1 };
	struct buf text = BUF_INIT;
	int fd;

	draw(s, m, &resp);
	fd = resp.fd;
	r->size = resp.fd >= 0 ? resp.fd_size : resp.body.len;
	if (fd < 0)
		fd = body_file(&resp.body);
	r->status = fd < 0 ? 500 : resp.status;
	buf_init(&text, sizeof(r->text) - 1);
	buf_addstr(&text, resp.content_type ? resp.content_type : types[0]);
	buf_addch(&text, '\n');
	for (int i = 0; i < resp.nheaders; i++) {
		buf_addf(&text, "%s: %s\n", resp.headers[i].name, resp.headers[i].value);
		free(resp.headers[i].name);
		free(resp.headers[i].value);
	}
	memcpy(r->text, text.ptr, text.len + 1);
	buf_release(&text);
	buf_release(&resp.body);
	return fd;
}
