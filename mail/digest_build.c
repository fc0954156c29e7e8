/*
 * digest_build: the text of one list's digest, read from the database.
 *
 * Plain text for any mail client: lines of at most 72 columns, except the
 * lines that hold only a URL.  Every string from the tracker goes through
 * mail_clean_text() (no control characters, no CR/LF, valid UTF-8) and is
 * cut on a character boundary with an ellipsis to fit its line.  Sections
 * appear only when they have something in them; each is capped so that a
 * tracker full of stale bugs still gives a mail people read.
 *
 * An infra-error is no test result: the runner failed, not the patch (it is
 * retried, or waits for `bugbridge job retry`).  Nor is an untested job (the
 * patch changes code the test kernel cannot build: no test judged it).
 * Such jobs are listed apart, under "Not tested", and count neither as
 * results (the subject, a list's first digest) nor as news (a digest with
 * nothing else is not sent).
 *
 * Read-only: digest.c decides when to build and records the result.
 */
#include "mail.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"
#include "message.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define DIGEST_WIDTH 72
#define DIGEST_MAX_ITEMS 100

struct digest_ctx {
	struct db *db;
	const struct digest_route *r;
	struct digest_shared *shared;	/* or NULL */
	time_t since, now;
	struct buf since_iso;	/* since, in the tracker's time format */
	struct buf tracker;	/* [tracker] url without a trailing slash */
	struct buf web;		/* [web] base_url (or http://listen), likewise */
};

/* An open bug that needs attention, as the attention query gave it. */
struct digest_stale {
	sqlite3_int64 id;
	char *product, *component, *status, *summary, *created, *reply;
};

/*
 * Which bugs need attention depends only on the time, not on the list, and
 * is the costly query; a run over many lists reads it once.
 */
struct digest_shared {
	time_t now;
	bool loaded;
	struct digest_stale *v;
	int n, alloc;
};

static sqlite3_int64 st_id(sqlite3_stmt *st)
{
	return sqlite3_column_int64(st, 0);
}

static void shared_clear(struct digest_shared *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->v[i].product);
		free(s->v[i].component);
		free(s->v[i].status);
		free(s->v[i].summary);
		free(s->v[i].created);
		free(s->v[i].reply);
	}
	s->n = 0;
	s->loaded = false;
}

struct digest_shared *digest_shared_new(void)
{
	struct digest_shared *s = xcalloc(1, sizeof(*s));

	return s;
}

void digest_shared_free(struct digest_shared *s)
{
	if (!s)
		return;
	shared_clear(s);
	free(s->v);
	free(s);
}

/*
 * Everything below reads the public_* views (schema 0008): a digest goes to
 * a list, so a private bug (in a tracker group) and its jobs are never in it.
 */

/* New: created in the window, or first seen in it (poll lag) when recent. */
#define DIGEST_NEW_WHERE \
	" WHERE creation_time > ?1 OR (first_seen > ?2 AND creation_time > ?3)"

DB_SQL(sql_digest_new,
       "SELECT id, product, component, status, summary, creation_time FROM public_bugs"
       DIGEST_NEW_WHERE " ORDER BY creation_time, id");

/*
 * Open bugs nobody but the reporter and bugbridge has said anything on
 * since the cutoff; last_reply is the newest comment by anyone else.  The
 * same rule as triage's needs_attention flag (server/stale.c), computed
 * here at build time so that a digest never depends on when triage last
 * ran; bugs an allowed account told us to ignore are left out, as there.
 */
DB_SQL(sql_digest_attention,
       "SELECT id, product, component, status, summary, creation_time, last_reply FROM"
       " (SELECT b.id, b.product, b.component, b.status, b.summary, b.creation_time,"
       "   (SELECT MAX(c.time) FROM public_comments c WHERE c.bug_id = b.id AND c.is_ours = 0"
       "     AND c.author <> b.creator AND c.author <> ?1) AS last_reply"
       "  FROM public_bugs b WHERE b.is_open = 1 AND b.ignored = 0 AND b.creation_time <> '')"
       " WHERE MAX(creation_time, COALESCE(last_reply, '')) <= ?2"
       " ORDER BY creation_time, id");

DB_SQL(sql_digest_results,
       "SELECT j.id, COALESCE(j.bug_id, 0), COALESCE(j.verdict, ''), COALESCE(j.change, ''),"
       " COALESCE(c.name, ''), j.candidate_id IS NULL,"
       " COALESCE(b.product, ''), COALESCE(b.component, '')"
       " FROM public_jobs j LEFT JOIN public_candidates c ON c.id = j.candidate_id"
       " LEFT JOIN public_bugs b ON b.id = j.bug_id"
       " WHERE j.state = 'done' AND j.kind <> 'bisect-step'"
       " AND j.finished_at > ?1 AND j.finished_at <= ?2"
       " ORDER BY j.bug_id, j.id");

/* Per bug, not GROUP BY: maintainer routes decide bug by bug. */
DB_SQL(sql_digest_open,
       "SELECT id, product, component FROM public_bugs WHERE is_open = 1");
DB_SQL(sql_digest_opened,
       "SELECT id, product, component FROM public_bugs" DIGEST_NEW_WHERE);
DB_SQL(sql_digest_closed,
       "SELECT id, product, component FROM public_bugs WHERE closed_time > ?1");

void digest_init(struct digest *d)
{
	memset(d, 0, sizeof(*d));
	buf_init(&d->subject, 0);
	buf_init(&d->body, 0);
}

void digest_release(struct digest *d)
{
	buf_release(&d->subject);
	buf_release(&d->body);
}

bool digest_is_empty(const struct digest *d)
{
	return !d->n_new && !d->n_attention && !d->n_results && !d->n_regressions &&
		!d->n_opened && !d->n_closed;
}

static void strip_slash(struct buf *b)
{
	while (b->len && b->ptr[b->len - 1] == '/')
		buf_setlen(b, b->len - 1);
}

static void ctx_init(struct digest_ctx *ctx, struct db *db, const struct digest_route *r,
		     struct digest_shared *shared, time_t since, time_t now)
{
	const char *base = cfg_str("web.base_url");

	memset(ctx, 0, sizeof(*ctx));
	ctx->db = db;
	ctx->r = r;
	ctx->shared = shared;
	ctx->since = since;
	ctx->now = now;
	digest_iso_time(&ctx->since_iso, since);
	buf_addstr(&ctx->tracker, cfg_str("tracker.url"));
	strip_slash(&ctx->tracker);
	if (*base)
		buf_addstr(&ctx->web, base);
	else
		buf_addf(&ctx->web, "http://%s", cfg_str("web.listen"));
	strip_slash(&ctx->web);
}

static void ctx_release(struct digest_ctx *ctx)
{
	buf_release(&ctx->since_iso);
	buf_release(&ctx->tracker);
	buf_release(&ctx->web);
}

/* "5h" under two days, else "49d". */
static void add_age(struct buf *out, time_t seconds)
{
	if (seconds < 0)
		seconds = 0;
	if (seconds < 2 * 86400)
		buf_addf(out, "%lldh", (long long)(seconds / 3600));
	else
		buf_addf(out, "%lldd", (long long)(seconds / 86400));
}

static time_t age_of(const struct digest_ctx *ctx, const char *iso)
{
	time_t t = digest_parse_time(iso);

	return t ? ctx->now - t : 0;
}

/*
 * Append clean tracker text cut to the columns left on the current line
 * (which starts at line_start), and to at most max columns.
 */
static void add_fitted(struct buf *out, size_t line_start, const char *text, size_t max)
{
	struct buf clean = BUF_INIT;
	size_t used = mail_text_width(out->ptr + line_start);

	mail_clean_text(&clean, text);
	if (used < DIGEST_WIDTH)
		mail_add_truncated(out, clean.ptr, DIGEST_WIDTH - used < max ?
				   DIGEST_WIDTH - used : max);
	buf_release(&clean);
}

static void trim_line(struct buf *out)
{
	while (out->len && out->ptr[out->len - 1] == ' ')
		buf_setlen(out, out->len - 1);
}

/*
 * "#9370 NEW 49d<extra>  summary…" and the tracker URL on its own line.
 * The archive reads items back by these shapes (lib/digest_text.h): an
 * item starts a line with "#<bug> " or "job <job>:", its URL is indented.
 */
static void add_bug(struct digest_ctx *ctx, struct buf *out, sqlite3_int64 id,
		    const char *status, const char *created, const char *summary,
		    const char *extra)
{
	size_t start = out->len;

	buf_addf(out, "#%lld ", (long long)id);
	add_fitted(out, start, *status ? status : "?", 16);
	buf_addch(out, ' ');
	add_age(out, age_of(ctx, created));
	buf_addstr(out, extra);
	buf_addstr(out, "  ");
	add_fitted(out, start, summary, DIGEST_WIDTH);
	trim_line(out);
	buf_addf(out, "\n    %s/show_bug.cgi?id=%lld\n", ctx->tracker.ptr, (long long)id);
}

/* The row's bug (column id) and its product and component (columns col, col + 1). */
static bool covers(const struct digest_ctx *ctx, sqlite3_stmt *st, int id, int col)
{
	return digest_route_covers(ctx->r, sqlite3_column_int64(st, id),
				   db_col_text(st, col), db_col_text(st, col + 1));
}

static void bind_new_window(const struct digest_ctx *ctx, sqlite3_stmt *st)
{
	struct buf recent = BUF_INIT;

	digest_iso_time(&recent, ctx->since - 7 * 86400);
	db_bind_text(st, 1, ctx->since_iso.ptr);
	sqlite3_bind_int64(st, 2, ctx->since);
	db_bind_text(st, 3, recent.ptr);
	buf_release(&recent);
}

/* Run to the end; -1 on a database error. */
static int step_end(struct digest_ctx *ctx, sqlite3_stmt *st, int rc)
{
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return error("digest: cannot read the database: %s", db_errmsg(ctx->db));
	return 0;
}

static void add_more(struct buf *out, int count)
{
	if (count > DIGEST_MAX_ITEMS)
		buf_addf(out, "... and %d more\n", count - DIGEST_MAX_ITEMS);
}

static int section_new(struct digest_ctx *ctx, struct buf *out, int *count)
{
	sqlite3_stmt *st = db_stmt(ctx->db, sql_digest_new);
	int rc;

	if (!st)
		return -1;
	bind_new_window(ctx, st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!covers(ctx, st, 0, 1))
			continue;
		if (++*count <= DIGEST_MAX_ITEMS)
			add_bug(ctx, out, st_id(st), db_col_text(st, 3), db_col_text(st, 5),
				db_col_text(st, 4), "");
	}
	add_more(out, *count);
	return step_end(ctx, st, rc);
}

/* Append the attention query's rows to s. */
static int load_stale(struct digest_ctx *ctx, struct digest_shared *s)
{
	sqlite3_stmt *st = db_stmt(ctx->db, sql_digest_attention);
	long stale = cfg_int("triage.stale_days");
	struct buf cutoff = BUF_INIT;
	int rc;

	if (!st)
		return -1;
	digest_iso_time(&cutoff, ctx->now - stale * 86400);
	db_bind_text(st, 1, cfg_str("tracker.login"));
	db_bind_text(st, 2, cutoff.ptr);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct digest_stale *b;

		if (s->n == s->alloc) {
			s->alloc = s->alloc ? 2 * s->alloc : 256;
			s->v = xrealloc(s->v, s->alloc * sizeof(*s->v));
		}
		b = &s->v[s->n++];
		b->id = st_id(st);
		b->product = xstrdup(db_col_text(st, 1));
		b->component = xstrdup(db_col_text(st, 2));
		b->status = xstrdup(db_col_text(st, 3));
		b->summary = xstrdup(db_col_text(st, 4));
		b->created = xstrdup(db_col_text(st, 5));
		b->reply = xstrdup(db_col_text(st, 6));
	}
	buf_release(&cutoff);
	s->now = ctx->now;
	s->loaded = true;
	return step_end(ctx, st, rc);
}

static int section_attention(struct digest_ctx *ctx, struct buf *out, int *count)
{
	struct digest_shared local = { 0 }, *s = ctx->shared ? ctx->shared : &local;
	struct buf extra = BUF_INIT;
	int ret = -1;

	if (!s->loaded || s->now != ctx->now) {
		shared_clear(s);
		if (load_stale(ctx, s))
			goto out;
	}
	for (int i = 0; i < s->n; i++) {
		const struct digest_stale *b = &s->v[i];

		if (!digest_route_covers(ctx->r, b->id, b->product, b->component) ||
		    ++*count > DIGEST_MAX_ITEMS)
			continue;
		buf_reset(&extra);
		if (*b->reply) {
			buf_addstr(&extra, ", quiet ");
			add_age(&extra, age_of(ctx, b->reply));
		} else {
			buf_addstr(&extra, ", no reply");
		}
		add_bug(ctx, out, b->id, b->status, b->created, b->summary, extra.ptr);
	}
	add_more(out, *count);
	ret = 0;
out:
	if (s == &local) {
		shared_clear(&local);
		free(local.v);
	}
	buf_release(&extra);
	return ret;
}

/* "PASS->FAIL", "pass -> fail", "PASS→FAIL": a pass became a failure. */
static bool is_regression(const char *change)
{
	const char *pass = strcasestr(change, "pass");
	const char *fail = strcasestr(change, "fail");

	return pass && fail && pass < fail;
}

static void add_result(struct digest_ctx *ctx, struct buf *out, sqlite3_stmt *st)
{
	size_t start = out->len;
	sqlite3_int64 job = sqlite3_column_int64(st, 0);
	sqlite3_int64 bug = sqlite3_column_int64(st, 1);
	const char *verdict = db_col_text(st, 2), *change = db_col_text(st, 3);
	const char *patch = db_col_text(st, 4);

	if (bug)
		buf_addf(out, "#%lld ", (long long)bug);
	buf_addf(out, "job %lld: ", (long long)job);
	for (const char *v = *verdict ? verdict : "no verdict"; *v; v++)
		buf_addch(out, toupper((unsigned char)*v));
	if (*change) {
		buf_addstr(out, " (");
		add_fitted(out, start, change, 16);
		buf_addch(out, ')');
	}
	buf_addstr(out, "  ");
	if (sqlite3_column_int(st, 5))
		add_fitted(out, start, "unpatched base", DIGEST_WIDTH);
	else
		add_fitted(out, start, *patch ? patch : "(unnamed patch)", DIGEST_WIDTH);
	trim_line(out);
	buf_addf(out, "\n    %s/job/%lld\n", ctx->web.ptr, (long long)job);
}

/* The finished jobs of the window, by section. */
struct digest_jobs {
	struct buf results, regressions, infra;
	int nresults, nregressions, ninfra;
};

static int section_results(struct digest_ctx *ctx, struct digest_jobs *j)
{
	sqlite3_stmt *st = db_stmt(ctx->db, sql_digest_results);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, ctx->since);
	sqlite3_bind_int64(st, 2, ctx->now);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		bool no_bug = !sqlite3_column_int64(st, 1);

		/* results on no bug go to the catch-all lists only */
		if (no_bug ? !ctx->r->all : !covers(ctx, st, 1, 6))
			continue;
		if (!strcmp(db_col_text(st, 2), "infra-error") ||
		    !strcmp(db_col_text(st, 2), "untested")) {
			if (++j->ninfra <= DIGEST_MAX_ITEMS)
				add_result(ctx, &j->infra, st);
			continue;
		}
		if (++j->nresults <= DIGEST_MAX_ITEMS)
			add_result(ctx, &j->results, st);
		if (is_regression(db_col_text(st, 3)) && ++j->nregressions <= DIGEST_MAX_ITEMS)
			add_result(ctx, &j->regressions, st);
	}
	add_more(&j->results, j->nresults);
	add_more(&j->regressions, j->nregressions);
	add_more(&j->infra, j->ninfra);
	return step_end(ctx, st, rc);
}

enum count_bind { COUNT_ALL, COUNT_NEW, COUNT_SINCE };

/* Count the bugs of an "id, product, component" query this route covers. */
static int count_covered(struct digest_ctx *ctx, const char *sql, enum count_bind bind,
			 int *count)
{
	sqlite3_stmt *st = db_stmt(ctx->db, sql);
	int rc;

	if (!st)
		return -1;
	if (bind == COUNT_NEW)
		bind_new_window(ctx, st);
	else if (bind == COUNT_SINCE)
		db_bind_text(st, 1, ctx->since_iso.ptr);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (covers(ctx, st, 0, 1))
			(*count)++;
	return step_end(ctx, st, rc);
}

static int stats(struct digest_ctx *ctx, struct digest *d)
{
	if (count_covered(ctx, sql_digest_open, COUNT_ALL, &d->n_open) ||
	    count_covered(ctx, sql_digest_opened, COUNT_NEW, &d->n_opened) ||
	    count_covered(ctx, sql_digest_closed, COUNT_SINCE, &d->n_closed))
		return -1;
	return 0;
}

static void add_section(struct buf *body, const char *title, int count, const char *note,
			const struct buf *items)
{
	size_t start = body->len, width;

	if (!count)
		return;
	buf_addf(body, "\n%s (%d)%s%s\n", title, count, *note ? ": " : "", note);
	width = mail_text_width(body->ptr + start + 1) - 1;
	for (size_t i = 0; i < width && i < DIGEST_WIDTH; i++)
		buf_addch(body, '-');
	buf_addf(body, "\n%s", items->ptr);
}

static void add_date(struct buf *out, time_t t, const char *fmt)
{
	struct tm tm;
	char s[32];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), fmt, &tm);
	buf_addstr(out, s);
}

static void compose(struct digest_ctx *ctx, struct digest *d, const struct buf *news,
		    const struct buf *attention, const struct digest_jobs *j)
{
	struct buf note = BUF_INIT, name = BUF_INIT;

	mail_clean_text(&name, ctx->r->name);
	buf_addf(&d->subject, "[bugbridge] %s digest ", name.ptr);
	add_date(&d->subject, ctx->now, "%Y-%m-%d");
	buf_addf(&d->subject, ": %d new, %d need attention, %d results",
		 d->n_new, d->n_attention, d->n_results);

	buf_addstr(&d->body, "bugbridge digest for ");
	add_fitted(&d->body, 0, name.ptr, DIGEST_WIDTH);
	buf_addstr(&d->body, "\nSince ");
	add_date(&d->body, ctx->since, "%Y-%m-%d %H:%M");
	buf_addstr(&d->body, " UTC, until ");
	add_date(&d->body, ctx->now, "%Y-%m-%d %H:%M");
	buf_addstr(&d->body, " UTC.\n");

	add_section(&d->body, "New bugs", d->n_new, "", news);
	buf_addf(&note, "no reply in %ld days, oldest first", cfg_int("triage.stale_days"));
	add_section(&d->body, "Need attention", d->n_attention, note.ptr, attention);
	add_section(&d->body, "Test results", d->n_results, "", &j->results);
	add_section(&d->body, "Regressions", d->n_regressions, "PASS->FAIL", &j->regressions);
	add_section(&d->body, "Not tested", d->n_infra,
		    "infra-errors and untested patches, no results", &j->infra);
	buf_addf(&d->body, "\nStats: %d open; %d opened and %d closed since the last digest.\n",
		 d->n_open, d->n_opened, d->n_closed);
	buf_addf(&d->body, "\n-- \nbugbridge, %s/\n", ctx->web.ptr);
	buf_release(&note);
	buf_release(&name);
}

int digest_build(struct db *db, const struct digest_route *r,
		 struct digest_shared *shared, time_t since, time_t now, struct digest *d)
{
	struct buf news = BUF_INIT, attention = BUF_INIT;
	struct digest_jobs j = { BUF_INIT, BUF_INIT, BUF_INIT, 0, 0, 0 };
	struct digest_ctx ctx;
	int ret = -1;

	ctx_init(&ctx, db, r, shared, since, now);
	if (section_new(&ctx, &news, &d->n_new) ||
	    section_attention(&ctx, &attention, &d->n_attention) ||
	    section_results(&ctx, &j) || stats(&ctx, d))
		goto out;
	d->n_results = j.nresults;
	d->n_regressions = j.nregressions;
	d->n_infra = j.ninfra;
	compose(&ctx, d, &news, &attention, &j);
	ret = 0;
out:
	buf_release(&news);
	buf_release(&attention);
	buf_release(&j.results);
	buf_release(&j.regressions);
	buf_release(&j.infra);
	ctx_release(&ctx);
	return ret;
}
