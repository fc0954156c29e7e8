/*
 * privsep: the dashboard's side of the conversation with bugbridged (see
 * privsep.h).  One request at a time on the one socket: the worker threads
 * take turns (a request is a database row or an open(), so the wait is
 * short), and an answer that is not the exact size and type asked for is
 * an error.
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
#include <unistd.h>

/* seconds to wait for an answer: bugbridged answers between two of its steps at worst */
#define PS_TIMEOUT 30

static int ps_fd = -1;
static pthread_mutex_t ps_lock = PTHREAD_MUTEX_INITIALIZER;

void privsep_client_init(int fd)
{
	ps_fd = fd;
}

int privsep_ready(void)
{
	struct ps_msg m = { .type = PS_READY };

	return send(ps_fd, &m, sizeof(m), MSG_NOSIGNAL) == (ssize_t)sizeof(m) ? 0 : -1;
}

/* Receive one answer and, if one came along, a file descriptor. */
static ssize_t recv_reply(struct ps_reply *r, int *fd)
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

	if (poll(&pfd, 1, PS_TIMEOUT * 1000) != 1)
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

int privsep_call(struct ps_msg *m, struct ps_reply *r, int *fd)
{
	ssize_t n;
	int ret = -1;

	if (fd)
		*fd = -1;
	memset(r, 0, sizeof(*r));
	m->name[sizeof(m->name) - 1] = '\0';
	m->token[sizeof(m->token) - 1] = '\0';
	pthread_mutex_lock(&ps_lock);
	if (ps_fd < 0) {
		log_error("http: no connection to bugbridged for request %u", m->type);
		goto out;
	}
	if (send(ps_fd, m, sizeof(*m), MSG_NOSIGNAL) != (ssize_t)sizeof(*m)) {
		log_error("http: cannot ask bugbridged: %s", strerror(errno));
		goto out;
	}
	n = recv_reply(r, fd);
	if (n != (ssize_t)sizeof(*r) || r->type != m->type) {
		log_error("http: bugbridged gave no proper answer to request %u", m->type);
		goto out;
	}
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
