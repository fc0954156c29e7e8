/*
 * service: the steps of bugbridged's cycle, one module each, in data-flow
 * order.  bugbridged.c calls them; `--once` runs each once, in this order.
 *
 *   poll.c     tracker -> bugs, comments, attachments, candidates, jobs
 *   triage.c   finished jobs -> triage state, outbox rows (same transaction)
 *   outbox.c   outbox rows -> tracker comments and field updates, exactly once
 *   digest.c   due digests -> outbox mail rows -> SMTP
 *   http.c     the dashboard and JSON API (libmicrohttpd's own threads)
 *
 * Each returns 0 when its step ran (even if it found nothing to do) and -1
 * when it failed; a failed step is logged and retried next cycle, it never
 * stops the service.  `stop` is raised by SIGTERM: long loops check it
 * between items so the item in flight always finishes.
 */
#ifndef BB_SERVICE_H
#define BB_SERVICE_H

#include <signal.h>
#include <time.h>
#include "buf.h"
#include "db.h"

int poll_cycle(struct db *db, const volatile sig_atomic_t *stop);
int triage_run(struct db *db, const volatile sig_atomic_t *stop);
int outbox_flush(struct db *db, const volatile sig_atomic_t *stop);
int digest_tick(struct db *db, time_t now, const volatile sig_atomic_t *stop);

struct http_server;
struct http_server *http_start(struct buf *err);
void http_stop(struct http_server *srv);

#endif
