/*
 * page: the dashboard's handlers (one file each, like cgit's ui-*.c) and
 * the small layout and formatting helpers they share (page_common.c).
 *
 *   page_overview.c   /                       open bugs by component, verdicts, queue
 *   page_component.c  /component/<c>, /product/<p>/<c>
 *   page_bug.c        /bug/<id>               timeline, candidates, jobs, posts
 *   page_bases.c      (its section)           releases a test fails in, fixes' back-tests
 *   page_job.c        /job/<id>, /job/<id>/<name>.log
 *   page_stats.c      /stats                  inline SVG charts + tables
 *   page_digests.c    /digests
 *   page_static.c     /style.css (embedded), /healthz
 *   page_queue.c      /queue; queue order, position and estimated start/finish,
 *                     each account's use (pages + API)
 *   artifacts.c       /artifacts/<token>/<name>: what a LAVA worker boots
 *   feed.c            /feed.atom
 *   api_*.c           /api/...
 *
 * All text from the database goes through html.h escapers.
 */
#ifndef BB_PAGE_H
#define BB_PAGE_H

#include <stdbool.h>
#include <time.h>
#include "http.h"
#include "estimate.h"

int page_overview(struct http_request *req, struct http_response *resp);
int page_component(struct http_request *req, struct http_response *resp);
int page_product(struct http_request *req, struct http_response *resp);
int page_bug(struct http_request *req, struct http_response *resp);
/* The bug page's "Kernel versions" section (nothing when it has none); -1 on error. */
int page_bug_versions(struct db *db, sqlite3_int64 bug, struct buf *out);
int page_job(struct http_request *req, struct http_response *resp);
int page_stats(struct http_request *req, struct http_response *resp);
int page_digests(struct http_request *req, struct http_response *resp);
int page_style(struct http_request *req, struct http_response *resp);
int page_healthz(struct http_request *req, struct http_response *resp);
int page_artifact(struct http_request *req, struct http_response *resp);
int page_feed(struct http_request *req, struct http_response *resp);
int page_queue(struct http_request *req, struct http_response *resp);

int api_bugs(struct http_request *req, struct http_response *resp);
int api_bug(struct http_request *req, struct http_response *resp);
int api_jobs(struct http_request *req, struct http_response *resp);
int api_job(struct http_request *req, struct http_response *resp);
int api_job_create(struct http_request *req, struct http_response *resp);
int api_stats(struct http_request *req, struct http_response *resp);
int api_components(struct http_request *req, struct http_response *resp);
int api_digests(struct http_request *req, struct http_response *resp);
int api_queue(struct http_request *req, struct http_response *resp);

/* Layout: everything up to and including <main>; title is escaped. */
void page_begin(struct buf *out, const char *title, int refresh_seconds);
void page_end(struct buf *out);

/* <time datetime="...">2026-12-03 08:33</time> (UTC) of a Unix time; "–" for 0. */
void page_time(struct buf *out, time_t t);
/* The same for a tracker ISO-8601 time ("2026-12-03T08:33:40Z"), escaped. */
void page_iso_time(struct buf *out, const char *iso);
/* Unix time of a tracker ISO-8601 time, 0 if unparsable. */
time_t page_parse_iso(const char *iso);
/* A short duration: "45s", "12m", "3h 5m", "4d". */
void page_duration(struct buf *out, long seconds);
/* <span class="verdict v-fail">fail</span>; "–" for NULL or "". */
void page_verdict(struct buf *out, const char *verdict);
/* <a href="/bug/N">N</a> */
void page_bug_link(struct buf *out, sqlite3_int64 id);
/* The page of a component: /product/<prod>/<comp>, or /component/<comp> without a product. */
void page_component_url(struct buf *out, const char *prod, const char *comp);
/* The tracker's URL for bug id, without any user:password@ part. */
void page_tracker_url(struct buf *out, sqlite3_int64 id);
/* Names of the components that have bugs, for the 404 page; -1 on error. */
int page_known_components(struct db *db, struct buf *out_html);
/* page_results.c: a job's test cases and failure signatures. */
/* "<table class=tests><thead>...<tbody>": the rows' columns. */
void page_tests_head(struct buf *out);
/* Test-case rows of job (diagnostics cut at diag_cut); *count gets their number. */
int page_tests_rows(struct db *db, sqlite3_int64 job, int diag_cut, struct buf *out,
		    int *count);
/* "<li>" items of job's failure signatures; *count gets their number. */
int page_signature_items(struct db *db, sqlite3_int64 job, bool show_hash, struct buf *out,
			 int *count);
/* The dashboard's external base URL ([web] base_url or http://<listen>), no trailing /. */
void page_base_url(struct buf *out);

/*
 * The queue with estimates from the stage times measured on this host
 * (page_queue.c, lib/estimate.h).  Running jobs first (by start), then
 * queued jobs in claim order (lib job.h's JOB_CLAIM_ORDER), those waiting
 * for a time last, by that time.
 */
struct queue_entry {
	sqlite3_int64 job_id, bug_id;
	char state[12];			/* running | queued */
	char stage[16];			/* running: current stage */
	char kind[16];
	char purpose[16];		/* "", backtest, release */
	char account[128];		/* "": the operator's */
	int lane;			/* 0 allow_commands, 1 first verdict, 2 follow-up */
	time_t not_before;		/* queued: waits until then (0: due) */
	char held[200];			/* waiting for a budget: why ("" : not) */
	long elapsed;			/* running: seconds since start */
	int position;			/* queued: 1 = next */
	time_t est_start, est_finish;	/* 0: no estimate (nothing measured yet) */
	char base[64];			/* the job's base, for est_basis */
	int done, total;		/* running full build: objects compiled, of */
	bool overdue;			/* its current step runs past its median */
};
struct queue {
	struct queue_entry *v;
	int n;
	long typical;			/* a patch's job, seed built (seconds; 0: unknown) */
	int slots;			/* parallel jobs assumed */
	struct est_stats est;		/* what the estimates stand on (est_basis) */
};
int queue_load(struct db *db, time_t now, struct queue *q);
void queue_release(struct queue *q);

/* Each account's use of the queue today (UTC), for /queue and /api/queue. */
struct queue_account {
	char account[128];		/* "": the operator's */
	int today;			/* first verdicts counted against today's budget */
	int queued, waiting, running;	/* waiting: queued, not due yet */
	bool limited;			/* the account's budget applies to it */
};
struct queue_accounts {
	struct queue_account *v;
	int n;
	char day[11];			/* today, UTC */
	long account_budget, bug_budget;	/* [queue] ..._jobs_per_day (0: none) */
};
int queue_accounts_load(struct db *db, time_t now, struct queue_accounts *a);
void queue_accounts_release(struct queue_accounts *a);

/*
 * The numbers behind /stats and /api/stats (page_stats.c).  Months run from
 * the first to the last month with any bug opened or closed, gaps filled
 * with zeros, at most STATS_MAX_MONTHS (the newest).  Closers: the top
 * STATS_TOP_CLOSERS per year, newest year first.
 */
#define STATS_MAX_MONTHS 120
#define STATS_TOP_CLOSERS 5
struct stats_month { char month[16]; int opened, closed; };
struct stats_closer { char year[8]; char *who; int count; };
struct stats_count { char name[24]; int count; };
struct stats {
	struct stats_month *months;
	int nmonths;
	struct stats_closer *closers;
	int ncloser;
	struct stats_count verdicts[16];
	int nverdicts;
	long median_to_post;		/* seconds from candidate found to result posted; -1: none */
	int nposted;			/* candidates that have a posted result */
};
int stats_load(struct db *db, struct stats *s);
void stats_release(struct stats *s);

#endif
