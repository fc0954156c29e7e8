/*
 * estimate_queue: each running and queued job's estimated start and
 * finish, from the step measures of estimate.c.  See estimate.h.
 *
 * A job's plan (its steps, in the order run.c runs them) depends on three
 * facts: whether it has patches (a candidate), whether it runs a baseline,
 * and, for its base, whether a seed was built on this host (an unpatched
 * build that finished: run.c keeps each as the seed) and whether the
 * baseline's results are cached.  A queued job takes them from the
 * database, as changed by the jobs ahead of it; a running job from its own
 * stage rows where they tell (a seed or baseline step it ran).
 */
#include "estimate.h"
#include "config.h"
#include "xalloc.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DB_SQL(sql_est_job,
       "SELECT base, candidate_id IS NOT NULL, with_baseline FROM jobs WHERE id = ?");
/* an unpatched build that finished: run.c kept it as the base's seed */
DB_SQL(sql_est_seed,
       "SELECT EXISTS (SELECT 1 FROM job_stages s JOIN jobs j ON j.id = s.job_id"
       " WHERE j.base = ?1 AND s.stage = 'build' AND s.status = 'ok'"
       " AND (s.variant IN ('seed', 'baseline') OR j.candidate_id IS NULL))");
DB_SQL(sql_est_cached,
       "SELECT EXISTS (SELECT 1 FROM baseline_runs b JOIN jobs j ON j.id = b.job_id"
       " WHERE j.base = ?1 AND b.created_at >= ?2)");
DB_SQL(sql_est_rows,
       "SELECT variant, stage, started_at, finished_at IS NULL, ifnull(build_kind, ''),"
       " ifnull(objects, 0) FROM job_stages WHERE job_id = ?1"
       " AND attempt = (SELECT max(attempt) FROM job_stages WHERE job_id = ?1) ORDER BY id");

#define PLAN_MAX 16

struct step {
	const char *variant, *stage;
	enum est_step step;
};

struct facts {
	bool patches, baseline;		/* the job's */
	bool seed, cached;		/* its base's, when it starts */
};

/* What the jobs ahead did to a base: its seed built, its baseline cached. */
struct base_state {
	char base[64];
	bool known, seed, cached;
};

struct sim {
	struct db *db;
	const struct est_stats *s;
	time_t now;
	struct base_state *bases;
	int nbases;
};

static int plan(const struct facts *f, struct step *p)
{
	bool base_run = f->baseline && f->patches && !f->cached;
	enum est_step patched_build = f->patches || f->seed ? EST_BUILD_INCR : EST_BUILD_FULL;
	int n = 0;

	p[n++] = (struct step){ "patched", "prepare", EST_PREPARE };
	p[n++] = (struct step){ "patched", "apply", EST_APPLY };
	if (base_run || (f->patches && !f->seed)) {
		const char *v = base_run ? "baseline" : "seed";

		p[n++] = (struct step){ v, "apply", EST_APPLY };
		p[n++] = (struct step){ v, "configure", EST_CONFIGURE };
		p[n++] = (struct step){ v, "build", f->seed ? EST_BUILD_INCR : EST_BUILD_FULL };
	}
	p[n++] = (struct step){ "patched", "configure", EST_CONFIGURE };
	p[n++] = (struct step){ "patched", "build", patched_build };
	p[n++] = (struct step){ "patched", "boot", EST_BOOT };
	p[n++] = (struct step){ "patched", "test", EST_TEST };
	if (base_run) {
		p[n++] = (struct step){ "baseline", "boot", EST_BOOT };
		p[n++] = (struct step){ "baseline", "test", EST_TEST };
	}
	p[n++] = (struct step){ "patched", "report", EST_REPORT };
	return n;
}

/* Seconds of steps [from, n); -1 when one was never measured. */
static double steps_sum(const struct sim *sim, const char *base, const struct step *p,
			int from, int n)
{
	double total = 0, secs;
	bool mine;

	for (int i = from; i < n; i++) {
		if (!est_step(sim->s, base, p[i].step, &secs, &mine))
			return -1;
		total += secs;
	}
	return total;
}

static bool ask(struct sim *sim, const char *sql, const char *base, sqlite3_int64 arg)
{
	sqlite3_stmt *st = db_stmt(sim->db, sql);
	bool yes = false;

	if (!st)
		return false;
	db_bind_text(st, 1, base);
	if (arg)
		sqlite3_bind_int64(st, 2, arg);
	if (sqlite3_step(st) == SQLITE_ROW)
		yes = sqlite3_column_int(st, 0) != 0;
	sqlite3_reset(st);
	return yes;
}

/* The base's state: from the database the first time, then as jobs change it. */
static struct base_state *base_state(struct sim *sim, const char *base)
{
	long max_age = cfg_int("runner.baseline_max_age");
	struct base_state *b;

	for (int i = 0; i < sim->nbases; i++)
		if (!strcmp(sim->bases[i].base, base))
			return &sim->bases[i];
	sim->bases = xreallocarray(sim->bases, (size_t)sim->nbases + 1, sizeof(*sim->bases));
	b = &sim->bases[sim->nbases++];
	memset(b, 0, sizeof(*b));
	snprintf(b->base, sizeof(b->base), "%s", base);
	b->seed = ask(sim, sql_est_seed, base, 0);
	b->cached = max_age > 0 && ask(sim, sql_est_cached, base, (sqlite3_int64)sim->now - max_age);
	return b;
}

/* The job's base and facts; -1 when the job is gone or the database failed. */
static int job_facts(struct sim *sim, sqlite3_int64 id, char *base, size_t size,
		     struct facts *f)
{
	sqlite3_stmt *st = db_stmt(sim->db, sql_est_job);
	struct base_state *b;
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(base, size, "%s", db_col_text(st, 0));
		f->patches = sqlite3_column_int(st, 1);
		f->baseline = sqlite3_column_int(st, 2);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return -1;
	b = base_state(sim, base);
	f->seed = b->seed;
	f->cached = b->cached;
	return 0;
}

/* After the job: its base has a seed, and its baseline's results if it ran one. */
static void job_done(struct sim *sim, const char *base, const struct facts *f)
{
	struct base_state *b = base_state(sim, base);

	b->seed = true;
	if (f->baseline && f->patches)
		b->cached = true;
}

/* The running job's current step, as its stage rows say. */
struct current {
	char variant[16], stage[16], kind[16];
	double started;
	int objects;
	bool found, ran_seed, ran_base;
};

static int current_step(struct sim *sim, sqlite3_int64 id, struct current *c)
{
	sqlite3_stmt *st = db_stmt(sim->db, sql_est_rows);
	int rc;

	memset(c, 0, sizeof(*c));
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *variant = db_col_text(st, 0);

		c->ran_seed |= !strcmp(variant, "seed");
		c->ran_base |= !strcmp(variant, "baseline") && strcmp(db_col_text(st, 1), "boot") &&
			       strcmp(db_col_text(st, 1), "test");
		if (!sqlite3_column_int(st, 3))
			continue;
		snprintf(c->variant, sizeof(c->variant), "%s", variant);
		snprintf(c->stage, sizeof(c->stage), "%s", db_col_text(st, 1));
		snprintf(c->kind, sizeof(c->kind), "%s", db_col_text(st, 4));
		c->started = sqlite3_column_double(st, 2);
		c->objects = sqlite3_column_int(st, 5);
		c->found = true;
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Where the plan is at: the current step's index (0 when it is not in the plan). */
static int plan_index(const struct step *p, int n, const struct current *c)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(p[i].variant, c->variant) && !strcmp(p[i].stage, c->stage))
			return i;
	for (int i = 0; i < n; i++)
		if (!strcmp(p[i].stage, c->stage))
			return i;
	return 0;
}

/*
 * Seconds left of the current step: a full build by its own rate once it
 * has compiled enough to tell, else its measure less the time spent; a
 * tenth of the measure when that is spent (it runs long, it is not done).
 */
static double step_left(const struct sim *sim, const char *base, const struct current *c,
			enum est_step step, double in_step, struct est_job *e)
{
	double measure, left, floor;
	bool mine;

	if (!strcmp(c->stage, "build") && *c->kind)
		step = !strcmp(c->kind, "full") ? EST_BUILD_FULL : EST_BUILD_INCR;
	if (!est_step(sim->s, base, step, &measure, &mine))
		return -1;
	if (step == EST_BUILD_FULL) {
		for (int i = 0; i < sim->s->n; i++)
			if (!strcmp(sim->s->v[i].base, base))
				e->total = (int)(sim->s->v[i].objects + 0.5);
		if (!e->total)
			e->total = (int)(sim->s->any.objects + 0.5);
		e->done = c->objects;
		if (e->total > e->done && e->done >= 20) {
			left = in_step * (e->total - e->done) / e->done;
			return left > 1 ? left : 1;
		}
	}
	left = measure - in_step;
	e->overdue = left < 0;
	floor = measure / 10 > 1 ? measure / 10 : 1;
	return left > floor ? left : floor;
}

/* Seconds left of a running job; -1 when not measured. */
static double running_left(struct sim *sim, struct est_job *e, struct facts *f, char *base,
			   size_t size)
{
	struct step p[PLAN_MAX];
	struct current c;
	double cur, rest;
	int n, i;

	if (job_facts(sim, e->id, base, size, f) || current_step(sim, e->id, &c))
		return -1;
	/* what the job's own rows tell outranks what the base's say */
	if (c.ran_seed)
		f->seed = false;
	if (c.ran_base)
		f->cached = false;
	n = plan(f, p);
	if (!c.found)	/* between two steps: the next is about to begin */
		return steps_sum(sim, base, p, 0, n);
	i = plan_index(p, n, &c);
	cur = step_left(sim, base, &c, p[i].step, (double)sim->now - c.started, e);
	rest = steps_sum(sim, base, p, i + 1, n);
	return cur < 0 || rest < 0 ? -1 : cur + rest;
}

static double queued_length(struct sim *sim, struct est_job *e, struct facts *f, char *base,
			    size_t size)
{
	struct step p[PLAN_MAX];

	if (job_facts(sim, e->id, base, size, f))
		return -1;
	return steps_sum(sim, base, p, 0, plan(f, p));
}

static int earliest(const time_t *free_at, int n)
{
	int best = 0;

	for (int i = 1; i < n; i++)
		if (free_at[i] < free_at[best])
			best = i;
	return best;
}

/* A patch's job on the newest measured base, its seed built. */
static long typical_job(struct sim *sim)
{
	struct facts f = { .patches = true, .seed = true };
	struct step p[PLAN_MAX];
	double secs;

	if (!sim->s->n)
		return 0;
	secs = steps_sum(sim, sim->s->v[0].base, p, 0, plan(&f, p));
	return secs > 0 ? (long)(secs + 0.5) : 0;
}

void est_queue(struct db *db, const struct est_stats *s, time_t now, int slots,
	       struct est_job *v, int n, long *typical)
{
	struct sim sim = { .db = db, .s = s, .now = now };
	time_t *free_at = xcalloc((size_t)(slots > 0 ? slots : 1), sizeof(*free_at));
	int used = 0, slot;
	bool lost = false;	/* a job ahead has no estimate: nor has any after it */

	slots = slots > 0 ? slots : 1;
	for (int i = 0; i < slots; i++)
		free_at[i] = now;
	for (int i = 0; i < n; i++) {
		struct est_job *e = &v[i];
		char base[64] = "";
		struct facts f = { 0 };
		double secs;

		e->start = e->finish = 0;
		secs = e->running ? running_left(&sim, e, &f, base, sizeof(base))
				  : queued_length(&sim, e, &f, base, sizeof(base));
		snprintf(e->base, sizeof(e->base), "%s", base);
		if (*base)
			job_done(&sim, base, &f);
		slot = e->running && used < slots ? used++ : earliest(free_at, slots);
		if (secs < 0 || lost || (!e->running && !free_at[slot])) {
			lost = lost || !e->running;
			free_at[slot] = 0;	/* unknown from here on */
			continue;
		}
		if (!e->running)
			e->start = free_at[slot] > e->not_before ? free_at[slot] : e->not_before;
		e->finish = (e->running ? now : e->start) + (time_t)(secs + 0.5);
		free_at[slot] = e->finish;
	}
	*typical = typical_job(&sim);
	free(free_at);
	free(sim.bases);
}
