/*
 * web: the dashboard and the JSON API, in a process of their own.
 *
 * Owns: the dashboard's process and what bugbridged does for it (web_proc.c,
 * listen.c, privsep_serve.c), the process itself (web_child.c: no secret
 * but the API token, read-only database connections, no root), its HTTP
 * server (http.c, on libmicrohttpd's threads; http_db.c: the connections,
 * public or full), one file per page (page_*.c) and per API family
 * (api_*.c), the Atom feed, the HTML escapers every tracker string goes
 * through (html.c) and the stylesheet (style.css, built in).  May use:
 * lib/ only; it never talks to the tracker, builds a kernel or sends mail.
 */
#ifndef BB_WEB_H
#define BB_WEB_H

#include "buf.h"

struct web;
/*
 * Listen on [web] listen and start the dashboard's process, logging at
 * log_level; returns once it serves.  NULL with the reason in err.
 */
struct web *web_start(int log_level, struct buf *err);
/* Start the dashboard again with the configuration installed now (SIGHUP). */
void web_reload(struct web *w);
/* Stop the dashboard (requests in flight finish) and close the socket; NULL is fine. */
void web_stop(struct web *w);

/*
 * The dashboard's process: what `bugbridged --web-child LEVEL` runs, as
 * started by web_start() (never by hand).  Returns the exit code.
 */
int web_child_main(int argc, char **argv);

#endif
