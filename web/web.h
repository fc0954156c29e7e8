/*
 * web: the dashboard and the JSON API, read-only over the database but for
 * the one authenticated write (POST /api/jobs).
 *
 * Owns: the HTTP server (http.c, on libmicrohttpd's threads, one database
 * connection per thread), one file per page (page_*.c) and per API family
 * (api_*.c), the Atom feed, the HTML escapers every tracker string goes
 * through (html.c) and the stylesheet (style.css, built in).  May use: lib/
 * only; it never talks to the tracker, builds a kernel or sends mail.
 */
#ifndef BB_WEB_H
#define BB_WEB_H

#include "buf.h"

struct http_server;
/* Listen on [web] listen; NULL with the reason in err. */
struct http_server *http_start(struct buf *err);
/* Finish the requests in flight and close every connection; NULL is fine. */
void http_stop(struct http_server *srv);

#endif
