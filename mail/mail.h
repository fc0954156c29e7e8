/*
 * mail: the mailing-list digest, from database to mail server.  This is
 * the folder's public face (bugbridged calls digest_tick, the admin
 * command previews and sends); message.c (composing one RFC 5322 message)
 * and smtp.c (handing it to the server) are its own.  May use: lib/ only.
 *
 *   digest_route.c   which lists get a digest, and which bugs each covers
 *   digest_build.c   the text: new bugs, bugs needing attention, results,
 *                    regressions, stats (read-only over the database)
 *   digest.c         the schedule: once per period and list, a digest is
 *                    built, recorded in `digests` and queued as an outbox
 *                    mail row in ONE transaction (digest_tick, digest_queue)
 *   digest_send.c    pending outbox mail rows -> smtp_send(), with backoff
 *   digest_record.c  what became of a list's digest; a refused one queued again
 *
 * A digest's Message-ID is made when it is built and stored in the queued
 * message itself, so any resend (after a crash between the server's 250 and
 * our bookkeeping) carries the same id and list software drops the copy.
 */
#ifndef BB_MAIL_H
#define BB_MAIL_H

#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include "buf.h"
#include "db.h"

/*
 * due digests -> outbox mail rows -> SMTP: the service's step.  0 when it
 * ran, -1 when it failed (logged, retried next cycle).
 */
int digest_tick(struct db *db, time_t now, const volatile sig_atomic_t *stop);

/* One list and the bugs it hears about. */
struct digest_route {
	char *list;		/* the address mail goes to */
	char *name;		/* for the subject: components, or the list's name */
	bool all;		/* a default list ([smtp] to): every bug */
	char **components;	/* "SCSI" or "IO/Storage:SCSI" */
	int ncomponents;
	sqlite3_int64 *bugs;	/* [smtp] use_maintainers: bugs whose owners */
	int nbugs;		/* (bug_owners) name this list, sorted */
};

struct digest_routes {
	struct digest_route *v;
	int n;
};

#define DIGEST_ROUTES_INIT { NULL, 0 }

/*
 * Routes from [smtp] to and [smtp] lists, and with [smtp] use_maintainers
 * the L: lists triage stored in bug_owners for each bug; -1 with err on a
 * malformed entry or a database error.
 */
int digest_routes_load(struct digest_routes *r, struct db *db, struct buf *err);
void digest_routes_release(struct digest_routes *r);
bool digest_route_covers(const struct digest_route *r, sqlite3_int64 bug,
			 const char *product, const char *component);

/* The period t falls in: "2026-12-03" (daily) or "2026-W49" (weekly), whose
 * digest is due at [digest] hour UTC of its first day. */
void digest_period(struct buf *out, time_t t, const char *every, int hour);

/* Seconds in a period, for the window of a list's very first digest. */
long digest_period_seconds(const char *every);

/* Format t as the tracker does: "2026-12-03T08:33:40Z". */
void digest_iso_time(struct buf *out, time_t t);
/* Parse that format; 0 if it does not parse. */
time_t digest_parse_time(const char *s);

/*
 * A digest's text, covering (since, until].  n_results counts test results
 * only; n_infra the jobs that ended in infra-error (listed apart: no result,
 * and no news on their own).
 */
struct digest {
	struct buf subject;
	struct buf body;
	int n_new, n_attention, n_results, n_regressions, n_infra;
	int n_open, n_opened, n_closed;
};

void digest_init(struct digest *d);
void digest_release(struct digest *d);
bool digest_is_empty(const struct digest *d);

/*
 * What the digests of one run (one `now`) share, so that many lists do not
 * each repeat the costly queries.  Optional everywhere (NULL: no sharing);
 * digest_shared_free accepts NULL.
 */
struct digest_shared;
struct digest_shared *digest_shared_new(void);
void digest_shared_free(struct digest_shared *s);

/* Build the digest of route r for the window (since, now]. */
int digest_build(struct db *db, const struct digest_route *r,
		 struct digest_shared *shared, time_t since, time_t now, struct digest *d);

/* What digest_queue did, or digest_preview says it would do. */
enum digest_outcome {
	DIGEST_EXISTS = 0,	/* this period's digest was built already */
	DIGEST_QUEUED = 1,	/* built, recorded and queued (preview: would be) */
	DIGEST_NOTHING = 2,	/* nothing new: not sent, not recorded */
	DIGEST_FIRST_WAITS = 3,	/* a list's first digest waits for a test result */
};

/*
 * Build, record and queue the digest of route r for period, unless one
 * exists already: an enum digest_outcome, or -1 on error.  A list's first
 * digest is sent only once it has a test result to report: on a fresh
 * install the first poll's bugs alone ("new", "need attention", 0 results)
 * would otherwise go to every list at once.
 */
int digest_queue(struct db *db, const struct digest_route *r, struct digest_shared *shared,
		 const char *period, time_t now);

/*
 * The message digest_queue would store for this route now, without storing
 * anything (for --dry-run), with an 8-bit body; *outcome is what
 * digest_queue would do if this period had no digest yet.
 */
int digest_preview(struct db *db, const struct digest_route *r, struct digest_shared *shared,
		   time_t now, struct buf *out, enum digest_outcome *outcome);

/* The digest of a list and period, as recorded. */
struct digest_record {
	bool built;
	time_t created_at;
	char state[16];		/* its mail's outbox state: pending, sending, sent, failed */
	struct buf error;	/* the mail server's last reply when not sent */
};

void digest_record_release(struct digest_record *d);
int digest_record_get(struct db *db, const char *list, const char *period,
		      struct digest_record *out);
/* The start of the period after the one t falls in. */
time_t digest_next_period(time_t t, const char *every, int hour);

/*
 * Queue every failed digest mail of list again (the same message and
 * Message-ID: a refused mail never reached the list), printing one line
 * each to report.  The number requeued, or -1.
 */
int digest_requeue_failed(struct db *db, const char *list, struct buf *report);

struct digest_send_stats {
	int sent, retry, failed;
};

/*
 * Send every due pending outbox mail row, one SMTP session each.  250:
 * sent + sent_at; no connection or 4xx: pending again with exponential
 * backoff ([smtp] backoff); 5xx: failed with the server's reply.
 */
int digest_send_pending(struct db *db, time_t now, const volatile sig_atomic_t *stop,
			struct digest_send_stats *stats);

/*
 * `bugbridge config check` (smtp_check.c): a line for whether the mail
 * server answers (EHLO, TLS and AUTH as configured, NOOP), and a warning
 * when no list is configured.
 */
struct check;
void mail_check(struct check *c);

#endif
