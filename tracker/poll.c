/*
 * poll: tracker -> bugs, comments, attachments, candidates, jobs.
 *
 * The cursor is the tracker's own time (never ours): the largest
 * last_change_time the tracker has shown us, or its /rest/time on the
 * first poll.  A cycle asks "which bugs changed since cursor - overlap?"
 * (last_change_time is inclusive, and the overlap covers changes made in
 * the same second as the previous answer) with only a few fields, pages
 * through the answer, keeps the bugs we watch whose last_change_time
 * differs from what we stored, and only for those fetches the full bug,
 * its comments (deduplicated by id; their privacy may have changed) and
 * attachments (data only for attachments we do not have).  So a quiet
 * tracker costs one request.
 *
 * One query covers every watch setting: the changed-bugs search is not
 * filtered by product or component on the tracker (pairs cannot be
 * expressed in one Bugzilla search); we filter the short answer here.
 * The first poll, or one after the watch settings changed, is a full one:
 * a search per watch setting, then the same per-bug fetches.
 *
 * Everything is fetched first and written in one transaction afterwards
 * (poll_store.c), so a failure leaves the database and the cursor as they
 * were.
 */
#include "config.h"
#include "xalloc.h"
#include "log.h"
#include "candidates.h"
#include "poll.h"
#include "redact.h"
#include "tracker.h"
#include "sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ids per ?id= search: keeps the URL far below common 8 KiB limits */
#define POLL_IDS_PER_SEARCH 200
#define POLL_CHANGED_FIELDS "id,product,component,status,is_open,last_change_time"

DB_SQL(sql_poll_load,
       "SELECT p.cursor, t.url, t.version, t.watch, t.recheck FROM poll_state p, tracker_state t"
       " WHERE p.id = 1 AND t.id = 1");
DB_SQL(sql_poll_bug_ltc, "SELECT last_change_time FROM bugs WHERE id = ?");
DB_SQL(sql_poll_attachment_have,
       "SELECT 1 FROM attachments WHERE id = ? AND data IS NOT NULL");
DB_SQL(sql_poll_comment_have, "SELECT 1 FROM comments WHERE id = ?");

struct watch {
	char **bugs, **components, **statuses;
	int nbugs, ncomponents, nstatuses;
	long *ids;
};

struct poll_ctx {
	struct db *db;
	struct bz bz;
	struct watch w;
	const volatile sig_atomic_t *stop;
	char *old_cursor, *old_url, *old_version, *old_watch, *old_recheck;
	long long fetched_at;	/* earliest Date of the answers that gave full bugs */
	long overlap;
	int page_size;
	struct poll_fetch f;
	char **open_statuses;	/* from the tracker, when watch_status is empty */
	int nopen;
};

static void watch_release(struct watch *w)
{
	config_list_free(w->bugs);
	config_list_free(w->components);
	config_list_free(w->statuses);
	free(w->ids);
}

static int watch_load(struct watch *w, struct buf *err)
{
	memset(w, 0, sizeof(*w));
	w->bugs = config_split_list(cfg_str("tracker.watch_bugs"), &w->nbugs);
	w->components = config_split_list(cfg_str("tracker.watch_components"), &w->ncomponents);
	w->statuses = config_split_list(cfg_str("tracker.watch_status"), &w->nstatuses);
	w->ids = xcalloc(w->nbugs + 1, sizeof(*w->ids));
	for (int i = 0; i < w->nbugs; i++) {
		char *end;

		w->ids[i] = strtol(w->bugs[i], &end, 10);
		if (*end || w->ids[i] <= 0) {
			buf_addf(err, "[tracker] watch_bugs: '%s' is not a bug id", w->bugs[i]);
			return -1;
		}
	}
	for (int i = 0; i < w->ncomponents; i++) {
		char *colon = strchr(w->components[i], ':');

		if (!colon || colon == w->components[i] || !colon[1]) {
			buf_addf(err, "[tracker] watch_components: '%s' is not product:component",
				 w->components[i]);
			return -1;
		}
	}
	return 0;
}

/*
 * What the cursor belongs to: when this changes, poll everything again.
 * The key is part of it because it decides which (private) bugs we see.
 */
static char *watch_fingerprint(const struct watch *w, const char *url, const char *key)
{
	struct buf s = BUF_INIT;
	char hex[SHA256_HEX_LEN];

	buf_addf(&s, "url=%s\nkey=%s\n", url, key);
	for (int i = 0; i < w->nbugs; i++)
		buf_addf(&s, "bug=%ld\n", w->ids[i]);
	for (int i = 0; i < w->ncomponents; i++)
		buf_addf(&s, "component=%s\n", w->components[i]);
	for (int i = 0; i < w->nstatuses; i++)
		buf_addf(&s, "status=%s\n", w->statuses[i]);
	sha256_hex(s.ptr, s.len, hex);
	memset(s.ptr, 0, s.len);
	buf_release(&s);
	return xstrdup(hex);
}

static bool in_list(char **list, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

static bool component_watched(const struct watch *w, const char *product, const char *component)
{
	size_t plen = strlen(product);

	for (int i = 0; i < w->ncomponents; i++) {
		const char *pc = w->components[i];

		if (!strncmp(pc, product, plen) && pc[plen] == ':' && !strcmp(pc + plen + 1, component))
			return true;
	}
	return false;
}

/* Does a bug from the changed-bugs search belong to what we watch? */
static bool watched(const struct watch *w, const struct bz_bug *b)
{
	bool status_ok = w->nstatuses ? in_list(w->statuses, w->nstatuses, b->status) : b->is_open;

	for (int i = 0; i < w->nbugs; i++)
		if (w->ids[i] == b->id)
			return true;
	if (w->ncomponents)
		return status_ok && component_watched(w, b->product, b->component);
	return !w->nbugs && w->nstatuses && status_ok;
}

static char *dup_col(sqlite3_stmt *st, int col)
{
	char *s;

	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return NULL;
	s = xstrdup(db_col_text(st, col));
	return s;
}

static int load_state(struct poll_ctx *c)
{
	sqlite3_stmt *st = db_stmt(c->db, sql_poll_load);

	if (!st || sqlite3_step(st) != SQLITE_ROW)
		return error("poll: cannot read poll_state: %s", db_errmsg(c->db));
	c->old_cursor = dup_col(st, 0);
	c->old_url = dup_col(st, 1);
	c->old_version = dup_col(st, 2);
	c->old_watch = dup_col(st, 3);
	c->old_recheck = dup_col(st, 4);
	sqlite3_reset(st);
	return 0;
}

/* The stored last_change_time of a bug, "" if we do not have it. */
static char *stored_ltc(struct db *db, long id)
{
	sqlite3_stmt *st = db_stmt(db, sql_poll_bug_ltc);
	char *s = NULL;

	if (st) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW)
			s = xstrdup(db_col_text(st, 0));
		sqlite3_reset(st);
	}
	return s ? s : xstrdup("");
}

/* t - secs, in Bugzilla's format; t itself if it does not parse. */
static void time_minus(const char *t, long secs, char out[32])
{
	struct tm tm;
	const char *end;
	time_t when;

	memset(&tm, 0, sizeof(tm));
	end = strptime(t, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end) {
		snprintf(out, 32, "%s", t);
		return;
	}
	when = timegm(&tm) - secs;
	gmtime_r(&when, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static long long parse_time(const char *t)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(t, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return end && !*end ? (long long)timegm(&tm) : -1;
}

/* Is id in the comma-separated list? */
static bool in_id_list(const char *list, long id)
{
	for (const char *p = list; p && *p;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (v == id)
			return true;
		p = *end == ',' ? end + 1 : end;
	}
	return false;
}

/* Keep the earliest server Date of the answers that carried full bugs. */
static void note_fetch_time(struct poll_ctx *c)
{
	if (c->bz.date && (!c->fetched_at || c->bz.date < c->fetched_at))
		c->fetched_at = c->bz.date;
}

/*
 * A bug whose last change is in the same second as (or after) the answer
 * that showed it may change again within that second without moving
 * last_change_time; fetch those once more next cycle.
 */
static void plan_recheck(struct poll_ctx *c)
{
	struct buf ids = BUF_INIT;

	for (size_t i = 0; i < c->f.bugs.n; i++) {
		long long t = parse_time(c->f.bugs.v[i].last_change_time);

		if (c->fetched_at && t >= c->fetched_at)
			buf_addf(&ids, "%s%ld", ids.len ? "," : "", c->f.bugs.v[i].id);
	}
	c->f.recheck = buf_detach(&ids, NULL);
}

static bool stopped(const struct poll_ctx *c)
{
	return c->stop && *c->stop;
}

static int check_version(struct poll_ctx *c)
{
	struct buf v = BUF_INIT;
	const char *url = cfg_str("tracker.url");

	if (c->old_version && c->old_url && !strcmp(c->old_url, url))
		return 0;
	if (bz_version(&c->bz, &v)) {
		buf_release(&v);
		return -1;
	}
	log_info("poll: tracker %s is Bugzilla %s", c->bz.url, v.ptr);
	c->f.url = xstrdup(url);
	c->f.version = buf_detach(&v, NULL);
	return 0;
}

static int open_statuses(struct poll_ctx *c)
{
	struct bz_status_list sl = { 0 };

	if (c->w.nstatuses || c->open_statuses || (!c->w.ncomponents && c->w.nbugs))
		return 0;
	if (bz_statuses(&c->bz, &sl))
		return -1;
	c->open_statuses = xcalloc(sl.n + 1, sizeof(char *));
	for (size_t i = 0; i < sl.n; i++)
		if (sl.v[i].is_open)
			c->open_statuses[c->nopen++] = xstrdup(sl.v[i].name);
	bz_status_list_release(&sl);
	return 0;
}

/* Full mode: every watched bug, whatever the cursor. */
static int search_all(struct poll_ctx *c, struct bz_bug_list *found)
{
	const char *const *statuses = c->w.nstatuses ? (const char *const *)c->w.statuses
						     : (const char *const *)c->open_statuses;

	for (int i = 0; i < c->w.nbugs; i += POLL_IDS_PER_SEARCH) {
		struct bz_query q = { .ids = c->w.ids + i, .nids = c->w.nbugs - i };

		if (q.nids > POLL_IDS_PER_SEARCH)
			q.nids = POLL_IDS_PER_SEARCH;
		if (bz_search(&c->bz, &q, found))
			return -1;
		note_fetch_time(c);
	}
	for (int i = 0; i < c->w.ncomponents && !stopped(c); i++) {
		char *pc = xstrdup(c->w.components[i]), *colon = strchr(pc, ':');
		struct bz_query q = { .product = pc, .component = colon + 1,
				      .statuses = statuses, .page_size = c->page_size };
		int rc;

		*colon = '\0';
		rc = bz_search(&c->bz, &q, found);
		free(pc);
		if (rc)
			return -1;
		note_fetch_time(c);
	}
	if (!c->w.nbugs && !c->w.ncomponents && c->w.nstatuses) {
		struct bz_query q = { .statuses = statuses, .page_size = c->page_size };

		if (bz_search(&c->bz, &q, found))
			return -1;
		note_fetch_time(c);
	}
	return 0;
}

/*
 * Incremental mode: the bugs changed since the cursor that we watch (or
 * already store).  The new cursor is the largest last_change_time seen.
 */
static int search_changed(struct poll_ctx *c, struct bz_bug_list *keep)
{
	struct bz_bug_list found = { 0 };
	struct bz_query q = { .include_fields = POLL_CHANGED_FIELDS, .page_size = c->page_size };
	char since[32], *max = NULL;
	int ret = -1;

	time_minus(c->old_cursor, c->overlap, since);
	q.last_change_time = since;
	if (bz_search(&c->bz, &q, &found))
		goto out;
	for (size_t i = 0; i < found.n; i++) {
		struct bz_bug *b = &found.v[i];
		char *have = stored_ltc(c->db, b->id);

		if (strcmp(b->last_change_time, c->old_cursor) > 0 &&
		    (!max || strcmp(b->last_change_time, max) > 0))
			max = b->last_change_time;
		if ((strcmp(have, b->last_change_time) || in_id_list(c->old_recheck, b->id)) &&
		    (*have || watched(&c->w, b))) {
			/* moved: only its id is needed, the full bug is fetched next */
			*bz_bug_list_push(keep) = *b;
			memset(b, 0, sizeof(*b));
		}
		free(have);
	}
	/* bugs left to check again, even if the search no longer shows them */
	for (const char *p = c->old_recheck; p && *p;) {
		char *end;
		long id = strtol(p, &end, 10);
		bool listed = false;

		if (end == p)
			break;
		for (size_t i = 0; i < keep->n && !listed; i++)
			listed = keep->v[i].id == id;
		if (!listed)
			bz_bug_list_push(keep)->id = id;
		p = *end == ',' ? end + 1 : end;
	}
	if (max)
		c->f.cursor = xstrdup(max);
	ret = 0;
out:
	bz_bug_list_release(&found);
	return ret;
}

/* Full fields for the changed bugs' ids, in a few searches. */
static int fetch_bugs(struct poll_ctx *c, const struct bz_bug_list *ids)
{
	long *v = xcalloc(ids->n + 1, sizeof(*v));
	int ret = 0;

	for (size_t i = 0; i < ids->n; i++)
		v[i] = ids->v[i].id;
	for (size_t i = 0; i < ids->n && !ret; i += POLL_IDS_PER_SEARCH) {
		struct bz_query q = { .ids = v + i, .nids = ids->n - i };

		if (q.nids > POLL_IDS_PER_SEARCH)
			q.nids = POLL_IDS_PER_SEARCH;
		ret = bz_search(&c->bz, &q, &c->f.bugs);
		note_fetch_time(c);
	}
	free(v);
	return ret;
}

/* Does the one-parameter query sql give a row for id? */
static bool row_exists(struct db *db, const char *sql, long id)
{
	sqlite3_stmt *st = db_stmt(db, sql);
	bool yes = false;

	if (st) {
		sqlite3_bind_int64(st, 1, id);
		yes = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_reset(st);
	}
	return yes;
}

/*
 * The comments and the attachments of one changed bug.  All of its
 * comments, not only the new ones: a comment marked private since we stored
 * it must stop showing, and only the whole list says so (one request
 * either way).  A bug new to us gets its attachments with their data in one
 * request; for a known bug we ask for the metadata (flags, privacy may have
 * changed) and fetch the data only of attachments we do not have.
 */
static int fetch_bug_details(struct poll_ctx *c, long bug_id)
{
	struct bz_attachment_list meta = { 0 };
	char *have = stored_ltc(c->db, bug_id);
	bool known = *have;
	int ret = -1;

	free(have);
	if (bz_comments(&c->bz, bug_id, NULL, &c->f.comments))
		goto out;
	if (!known) {
		ret = bz_attachments(&c->bz, bug_id, true, &c->f.attachments);
		goto out;
	}
	if (bz_attachments(&c->bz, bug_id, false, &meta))
		goto out;
	for (size_t i = 0; i < meta.n; i++) {
		struct bz_attachment *a = &meta.v[i];

		if (!row_exists(c->db, sql_poll_attachment_have, a->id)) {
			if (bz_attachment_get(&c->bz, a->id, &c->f.attachments))
				goto out;
			continue;
		}
		/* known: keep the metadata (flags may have changed); moved */
		*bz_attachment_list_push(&c->f.attachments) = *a;
		memset(a, 0, sizeof(*a));
	}
	ret = 0;
out:
	bz_attachment_list_release(&meta);
	return ret;
}

/*
 * [triage] test_from = editbugs: ask the tracker about the authors of what
 * will become new candidates (and only those), before anything is stored.
 */
static int lookup_authors(struct poll_ctx *c)
{
	char **who = NULL;
	size_t n = 0, alloc = 0;
	int ret;

	for (size_t i = 0; i < c->f.attachments.n; i++) {
		const struct bz_attachment *a = &c->f.attachments.v[i];

		if (candidate_attachment_worthy(a) &&
		    !row_exists(c->db, sql_poll_attachment_have, a->id) &&
		    trust_needs_lookup(&c->f.trust, a->creator)) {
			XGROW(who, n + 1, alloc);
			who[n++] = a->creator;
		}
	}
	for (size_t i = 0; i < c->f.comments.n; i++) {
		const struct bz_comment *cm = &c->f.comments.v[i];

		if (trust_needs_lookup(&c->f.trust, cm->creator) &&
		    candidate_comment_worthy(cm, bot_wrote(&c->f.bot, cm->creator)) &&
		    !row_exists(c->db, sql_poll_comment_have, cm->id)) {
			XGROW(who, n + 1, alloc);
			who[n++] = cm->creator;
		}
	}
	ret = trust_lookup(&c->f.trust, &c->bz, who, n);
	free(who);
	return ret;
}

static int fetch(struct poll_ctx *c)
{
	struct bz_bug_list changed = { 0 };
	struct buf now = BUF_INIT;
	bool full = !c->old_cursor || !c->old_watch || strcmp(c->old_watch, c->f.watch);
	int ret = -1;

	if (check_version(c))
		goto out;
	if (full) {
		struct bz_bug_list found = { 0 };

		/* the cursor is the tracker's clock before we look, so nothing slips by */
		if (bz_time(&c->bz, &now) || open_statuses(c) || search_all(c, &found)) {
			bz_bug_list_release(&found);
			goto out;
		}
		c->f.cursor = buf_detach(&now, NULL);
		for (size_t i = 0; i < found.n; i++) {
			char *have = stored_ltc(c->db, found.v[i].id);
			bool dup = false;

			for (size_t j = 0; j < c->f.bugs.n && !dup; j++)
				dup = c->f.bugs.v[j].id == found.v[i].id;
			if (!dup && (strcmp(have, found.v[i].last_change_time) ||
				     in_id_list(c->old_recheck, found.v[i].id))) {
				*bz_bug_list_push(&c->f.bugs) = found.v[i];	/* moved */
				memset(&found.v[i], 0, sizeof(found.v[i]));
			}
			free(have);
		}
		bz_bug_list_release(&found);
	} else {
		if (search_changed(c, &changed) || (changed.n && fetch_bugs(c, &changed)))
			goto out;
	}
	plan_recheck(c);
	for (size_t i = 0; i < c->f.bugs.n; i++) {
		if (stopped(c)) {
			buf_reset(&c->bz.errmsg);
			buf_addstr(&c->bz.errmsg, "interrupted by a stop request");
			goto out;
		}
		if (poll_private_skipped(&c->f.bugs.v[i])) {
			log_debug("poll: bug %ld is private ([tracker] private_bugs = skip):"
				  " not reading its comments or attachments", c->f.bugs.v[i].id);
			continue;
		}
		if (fetch_bug_details(c, c->f.bugs.v[i].id))
			goto out;
	}
	/* whose comments are ours: before candidates are judged by it */
	if (bot_identify(&c->f.bot, &c->bz, c->db, &c->f.comments) || lookup_authors(c))
		goto out;
	ret = 0;
out:
	bz_bug_list_release(&changed);
	buf_release(&now);
	return ret;
}

int poll_cycle(struct db *db, const volatile sig_atomic_t *stop)
{
	struct poll_ctx c = { .db = db, .stop = stop };
	struct buf err = BUF_INIT;
	int ret = -1;

	c.overlap = cfg_int("tracker.overlap");
	c.page_size = (int)cfg_int("tracker.page_size");
	if (watch_load(&c.w, &err)) {
		log_error("poll: %s", err.ptr);
		poll_record_error(db, err.ptr, 0);
		goto out_watch;
	}
	if (!c.w.nbugs && !c.w.ncomponents && !c.w.nstatuses) {
		log_warn("poll: nothing to watch: set [tracker] watch_bugs, watch_components or watch_status");
		ret = 0;
		goto out_watch;
	}
	if (bz_init_config(&c.bz, stop, &err)) {
		redact_buf(&err);
		log_error("poll: %s", err.ptr);
		poll_record_error(db, err.ptr, 0);
		goto out_watch;
	}
	if (load_state(&c))
		goto out;
	c.f.watch = watch_fingerprint(&c.w, cfg_str("tracker.url"), c.bz.api_key);
	trust_init(&c.f.trust);
	bot_init(&c.f.bot, &c.bz);
	if (bot_load(&c.f.bot, db))
		goto out;
	if (fetch(&c)) {
		log_error("poll: %s; nothing stored, cursor kept", c.bz.errmsg.ptr);
		poll_record_error(db, c.bz.errmsg.ptr, bz_requests(&c.bz));
		goto out;
	}
	if (poll_store(db, &c.f, bz_requests(&c.bz))) {
		poll_record_error(db, "cannot store the poll's results (see the log)",
				  bz_requests(&c.bz));
		goto out;
	}
	log_debug("poll: done in %lu requests, cursor %s", bz_requests(&c.bz),
		  c.f.cursor ? c.f.cursor : c.old_cursor);
	ret = 0;
out:
	poll_fetch_release(&c.f);
	if (c.open_statuses)
		for (int i = 0; i < c.nopen; i++)
			free(c.open_statuses[i]);
	free(c.open_statuses);
	free(c.old_cursor);
	free(c.old_url);
	free(c.old_version);
	free(c.old_watch);
	free(c.old_recheck);
	bz_release(&c.bz);
out_watch:
	watch_release(&c.w);
	buf_release(&err);
	return ret;
}
