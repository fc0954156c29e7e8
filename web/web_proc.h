/*
 * web_proc: bugbridged's side of the dashboard's process (web_proc.c) and
 * its listening socket (listen.c); web.h has the entry points bugbridged
 * calls, web_child.c the process itself.
 */
#ifndef BB_WEB_PROC_H
#define BB_WEB_PROC_H

#include "buf.h"
#include "web.h"

/* Listen on [web] listen ("host:port", "[v6]:port", ":port"); the fd, or -1 with err. */
int web_listen(const char *listen_spec, struct buf *err);

/* The descriptors the dashboard's process finds open (web_child.c). */
enum {
	WEB_FD_CONFIG = 0,	/* stdin: its configuration, secrets blanked but the token */
	WEB_FD_LOG = 2,		/* stderr: its log lines, written to ours by bugbridged */
	WEB_FD_LISTEN = 3,	/* the listening socket */
	WEB_FD_PRIVSEP = 4,	/* privsep.h's socket */
};

#endif
