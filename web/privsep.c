/*
 * privsep: the dashboard's side of the conversation with bugbridged (see
 * privsep.h).  One request at a time on the one socket: the worker threads
 * take turns (a request is a database row or an open(), so the wait is
 * short), and an answer that is not the exact size and type asked for is
 * an error.  An answer to an earlier request, which came after that
 * request gave up, is dropped with its file (privsep.h).
 */
#include "privsep.h"
#include "xalloc.h"
#include "job_logs.h"
#include "log.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* seconds to wait for an answer: bugbridged answers between two of its steps at worst */
#define PS_TIMEOUT 30

static int ps_fd = -1;
static uint64_t ps_seq;		/* the last request's id; under ps_lock */
static pthread_mutex_t ps_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local char caller[PS_AUTH_MAX];
static _Thread_local struct privsep_server *local;

void privsep_local(struct privsep_server *s)
{
	local = s;
}

void privsep_caller(const char *bearer)
{
	memset(caller, 0, sizeof(caller));
	if (bearer && strlen(bearer) < sizeof(caller))
		memcpy(caller, bearer, strlen(bearer));
}

void privsep_client_init(int fd)
{
	ps_fd = fd;
}

int privsep_ready(void)
{
	struct ps_msg m = { .type = PS_READY };

	return send(ps_fd, &m, sizeof(m), MSG_NOSIGNAL) == (ssize_t)sizeof(m) ? 0 : -1;
}

/*
 * Receive one answer within timeout_ms and, if one came along, a file
 * descriptor; -2 when none came in time.
 */
static ssize_t recv_reply(struct ps_reply *r, int *fd, int timeout_ms)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	struct pollfd pfd = { .fd = ps_fd, .events = POLLIN };
	struct cmsghdr *c;
	ssize_t n;
	int rc = poll(&pfd, 1, timeout_ms);

	if (rc == 0)
		return -2;
	if (rc != 1)
		return -1;
	n = recvmsg(ps_fd, &mh, MSG_CMSG_CLOEXEC);
	for (c = CMSG_FIRSTHDR(&mh); n > 0 && c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int))) {
			int got;

			memcpy(&got, CMSG_DATA(c), sizeof(int));
			if (fd && *fd < 0)
				*fd = got;
			else
				close(got);	/* none was expected: never keep it */
		}
	}
	if (n > 0 && (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		return -1;
	return n;
}

/* Milliseconds from now to deadline (CLOCK_MONOTONIC), 0 once past. */
static int ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? (int)ms : 0;
}

/*
 * The answer to request m, within PS_TIMEOUT: answers to earlier requests
 * (which gave up before they came) are dropped, and their files closed.
 */
static int await_reply(const struct ps_msg *m, struct ps_reply *r, int *fd)
{
	struct timespec deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += PS_TIMEOUT;
	for (;;) {
		ssize_t n = recv_reply(r, fd, ms_left(&deadline));

		if (n == -2)
			return error("http: bugbridged gave no answer in time to request %llu"
				     " (type %u)", (unsigned long long)m->seq, m->type);
		if (n != (ssize_t)sizeof(*r) || r->seq > m->seq)
			break;
		if (r->seq == m->seq)
			return r->type == m->type ? 0 : error("http: bugbridged answered request"
				" %llu (type %u) with type %u", (unsigned long long)m->seq,
				m->type, r->type);
		log_warn("http: dropped a late answer from bugbridged (to request %llu, type %u;"
			 " waiting for %llu)", (unsigned long long)r->seq, r->type,
			 (unsigned long long)m->seq);
		if (fd && *fd >= 0) {
			close(*fd);
			*fd = -1;
		}
	}
	return error("http: bugbridged gave no proper answer to request %llu (type %u)",
		     (unsigned long long)m->seq, m->type);
}

int privsep_call(struct ps_msg *m, struct ps_reply *r, int *fd)
{
	int ret = -1;

	if (fd)
		*fd = -1;
	memset(r, 0, sizeof(*r));
	m->name[sizeof(m->name) - 1] = '\0';
	m->token[sizeof(m->token) - 1] = '\0';
	memcpy(m->auth, caller, sizeof(m->auth));
	if (local) {
		int got = privsep_answer(local, m, r);

		if (fd)
			*fd = got;
		else if (got >= 0)
			close(got);
		return 0;
	}
	pthread_mutex_lock(&ps_lock);
	if (ps_fd < 0) {
		log_error("http: no connection to bugbridged for request %u", m->type);
		goto out;
	}
	m->seq = ++ps_seq;
	if (send(ps_fd, m, sizeof(*m), MSG_NOSIGNAL) != (ssize_t)sizeof(*m)) {
		log_error("http: cannot ask bugbridged: %s", strerror(errno));
		goto out;
	}
	if (await_reply(m, r, fd))
		goto out;
	r->text[sizeof(r->text) - 1] = '\0';
	ret = 0;
out:
	pthread_mutex_unlock(&ps_lock);
	if (ret && fd && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return ret;
}

int privsep_log_list(int64_t job_id, char ***names, int *n)
{
	struct ps_msg m = { .type = PS_LOG_LIST, .job_id = job_id };
	struct ps_reply *r = xmalloc(sizeof(*r));
	size_t alloc = 0;
	char *p, *nl;

	*names = NULL;
	*n = 0;
	if (privsep_call(&m, r, NULL) || r->status != 200) {
		free(r);
		return -1;
	}
	for (p = r->text; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (!job_log_name_ok(p))
			continue;	/* the child checks what it is given, too */
		XGROW(*names, (size_t)*n + 1, alloc);
		(*names)[(*n)++] = xstrdup(p);
	}
	free(r);
	return 0;
}

int privsep_sync(void)
{
	struct ps_msg *m = xcalloc(1, sizeof(*m));
	struct ps_reply *r = xmalloc(sizeof(*r));
	int ret;

	m->type = PS_SYNC;
	ret = privsep_call(m, r, NULL) || r->status != 200 ? -1 : 0;
	free(m);
	free(r);
	return ret;
}
