/*
 * listen: the dashboard's listening socket, opened by bugbridged itself (so
 * that "address in use" is reported at start, and a port below 1024 needs
 * no privilege in the dashboard's process) and handed to each dashboard
 * process it starts.
 *
 * A port still held for a moment by the dashboard of a bugbridged that was
 * just killed (it follows its parent within a moment: web_child.c) is
 * waited for, a few seconds at most.
 */
#include "web_proc.h"
#include "xalloc.h"

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* how long an address in use is retried */
#define LISTEN_WAIT_MS 5000

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

int web_listen(const char *listen_spec, struct buf *err)
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
	for (int waited = 0;; waited += 100) {
		struct timespec ts = { 0, 100 * 1000000L };

		if (!bind(fd, res->ai_addr, res->ai_addrlen) && !listen(fd, 128))
			break;
		if (errno != EADDRINUSE || waited >= LISTEN_WAIT_MS) {
			buf_addf(err, "cannot listen on '%s': %s", listen_spec, strerror(errno));
			close(fd);
			fd = -1;
			break;
		}
		nanosleep(&ts, NULL);
	}
out:
	if (res)
		freeaddrinfo(res);
	free(host);
	free(port);
	return fd;
}

