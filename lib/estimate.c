/*
 * estimate: the measures of each step on this host, and the basis the
 * pages show.  See estimate.h; estimate_queue.c plans the jobs with them.
 *
 * The newest stage rows are read once (a bounded window, newest first),
 * and each step keeps its first EST_RECENT values per base and for every
 * base together; the medians are taken of those.  A build row without a
 * build_kind (before schema 0021) is no measurement: its kind is unknown,
 * and a full build takes ten times an incremental one.
 */
#include "estimate.h"
#include "buf.h"
#include "xalloc.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DB_SQL(sql_est_stages,
       "SELECT j.base, s.stage, ifnull(s.build_kind, ''), s.finished_at - s.started_at,"
       " ifnull(s.objects, 0)"
       " FROM job_stages s JOIN jobs j ON j.id = s.job_id"
       " WHERE s.status = 'ok' AND s.finished_at IS NOT NULL"
       /* enough for the last few of every step of a few bases, and bounded */
       " ORDER BY s.id DESC LIMIT 5000");

/* Values gathered before the medians: the newest EST_RECENT of each. */
struct samples {
	double v[EST_NSTEPS][EST_RECENT];
	double objects[EST_RECENT];
};

static int step_of(const char *stage, const char *kind)
{
	static const char *const names[] = {
		[EST_PREPARE] = "prepare", [EST_APPLY] = "apply", [EST_CONFIGURE] = "configure",
		[EST_BOOT] = "boot", [EST_TEST] = "test", [EST_REPORT] = "report",
	};

	if (!strcmp(stage, "build"))
		return !strcmp(kind, "full") ? EST_BUILD_FULL :
		       !strcmp(kind, "incremental") ? EST_BUILD_INCR : -1;
	for (int i = 0; i < EST_NSTEPS; i++)
		if (names[i] && !strcmp(stage, names[i]))
			return i;
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void add(struct est_base *b, struct samples *sm, int step, double secs, int objects)
{
	if (b->count[step] < EST_RECENT)
		sm->v[step][b->count[step]++] = secs;
	if (step == EST_BUILD_FULL && objects > 0 && b->nobjects < EST_RECENT)
		sm->objects[b->nobjects++] = objects;
}

static void finish(struct est_base *b, struct samples *sm)
{
	for (int i = 0; i < EST_NSTEPS; i++)
		if (b->count[i])
			b->median[i] = median(sm->v[i], b->count[i]);
	if (b->nobjects)
		b->objects = median(sm->objects, b->nobjects);
}

/* The base's entry (and its samples), added if new. */
static int base_index(struct est_stats *s, struct samples **sm, const char *base)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].base, base))
			return i;
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 8;
		s->v = xreallocarray(s->v, (size_t)s->alloc, sizeof(*s->v));
		*sm = xreallocarray(*sm, (size_t)s->alloc, sizeof(**sm));
	}
	memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
	snprintf(s->v[s->n].base, sizeof(s->v[s->n].base), "%s", base);
	return s->n++;
}

int est_stats_load(struct db *db, struct est_stats *s)
{
	sqlite3_stmt *st = db_stmt(db, sql_est_stages);
	struct samples *sm = NULL, any;
	int rc;

	memset(s, 0, sizeof(*s));
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int step = step_of(db_col_text(st, 1), db_col_text(st, 2));
		double secs = sqlite3_column_double(st, 3);
		int objects = sqlite3_column_int(st, 4), b;

		if (step < 0 || secs < 0)
			continue;
		b = base_index(s, &sm, db_col_text(st, 0));
		add(&s->v[b], &sm[b], step, secs, objects);
		add(&s->any, &any, step, secs, objects);
	}
	sqlite3_reset(st);
	for (int i = 0; i < s->n; i++)
		finish(&s->v[i], &sm[i]);
	finish(&s->any, &any);
	free(sm);
	if (rc != SQLITE_DONE) {
		est_stats_release(s);
		return error("estimate: cannot read the stage times: %s", db_errmsg(db));
	}
	return 0;
}

void est_stats_release(struct est_stats *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

bool est_step(const struct est_stats *s, const char *base, enum est_step step,
	      double *seconds, bool *from_base)
{
	for (int i = 0; i < s->n; i++) {
		if (strcmp(s->v[i].base, base) || !s->v[i].count[step])
			continue;
		*seconds = s->v[i].median[step];
		*from_base = true;
		return true;
	}
	*from_base = false;
	*seconds = s->any.median[step];
	return s->any.count[step] > 0;
}

bool est_full_build(const struct est_stats *s, const char *base, double *seconds,
		    int *objects)
{
	for (int i = 0; i < s->n; i++) {
		const struct est_base *b = &s->v[i];

		if (strcmp(b->base, base) || !b->count[EST_BUILD_FULL] || !b->nobjects)
			continue;
		*seconds = b->median[EST_BUILD_FULL];
		*objects = (int)(b->objects + 0.5);
		return true;
	}
	return false;
}

void est_basis(const struct est_stats *s, const char *base, struct buf *out)
{
	const struct est_base *b = &s->any;
	int builds, boots;

	for (int i = 0; base && i < s->n; i++)
		if (!strcmp(s->v[i].base, base))
			b = &s->v[i];
	builds = b->count[EST_BUILD_FULL] + b->count[EST_BUILD_INCR];
	boots = b->count[EST_BOOT];
	if (!builds || !boots) {
		b = &s->any;
		builds = b->count[EST_BUILD_FULL] + b->count[EST_BUILD_INCR];
		boots = b->count[EST_BOOT];
		if (!builds || !boots) {
			buf_addstr(out, "no measurement yet (no kernel has been built and booted"
				   " on this host)");
			return;
		}
	}
	buf_addf(out, "from the last %d build%s and %d boot%s", builds, builds == 1 ? "" : "s",
		 boots, boots == 1 ? "" : "s");
	if (b != &s->any)
		buf_addf(out, " of %s", b->base);
	else if (base)
		buf_addf(out, " of other bases (none of %s yet)", base);
	buf_addstr(out, " on this host");
	if (!base)
		buf_addf(out, " (each step: the median of its last %d runs on the job's base)",
			 EST_RECENT);
}
