/*
 * stage: the bookkeeping every stage of a job shares.
 *
 * A job's stages (prepare, apply, configure, build, boot, test, report) are
 * rows in job_stages: stage_begin ends the current one "ok" and opens the
 * next, which also sets the job's progress line; stage_end and stage_fail
 * close one otherwise.
 *
 * While a stage runs a child (patch, make, tar, cp, qemu), stage_child keeps
 * the job alive and listening: the child.h tick (about once a second)
 * renews the lease about every lease/3 s, reads the job's cancel flag every
 * 2 s, and sees SIGTERM; any of them, or a lost lease, sets r->cancel,
 * which kills the child.  So a cancel is seen within about 2 s.
 *
 * `bugbridge-runner --warm` runs stages with no job (id 0): they are only
 * logged.
 */
#include "stage.h"
#include "jobserver.h"
#include "run.h"
#include "buf.h"
#include "child.h"
#include "job.h"
#include "config.h"
#include "log.h"

#include <stdarg.h>
#include <sys/time.h>

static double now_real(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

void stage_lease_start(struct run *r)
{
	r->last_renew = now_real();
}

void stage_tick(void *arg)
{
	struct run *r = arg;
	int lease = cfg_int("runner.lease");
	double now = now_real();
	bool cancel = false;

	if (r->stop && *r->stop)
		r->cancel = 1;
	if (r->progress)
		progress_tick(r);
	if (r->jobserver)
		jobserver_tick(r->jobserver);
	if (!r->job->id)	/* --warm: no job to renew or cancel */
		return;
	if (now - r->last_cancel_check >= 2) {
		r->last_cancel_check = now;
		if (job_cancel_requested(r->job, r->db)) {
			r->cancelled = true;
			r->cancel = 1;
		}
	}
	if (now - r->last_renew < (lease > 3 ? lease / 3 : 1))
		return;
	r->last_renew = now;
	if (job_renew(r->job, r->db, lease, &cancel)) {
		r->lease_lost = true;
		r->cancel = 1;
	} else if (cancel) {
		r->cancelled = true;
		r->cancel = 1;
	}
}

bool stage_interrupted(struct run *r)
{
	stage_tick(r);
	return r->cancel != 0;
}

void stage_cap_output(struct child *ch)
{
	ch->log_max = cfg_int("runner.max_build_log");
	ch->log_max_key = "[runner] max_build_log";
}

int stage_child(struct run *r, struct child *ch)
{
	return stage_children(r, &ch, 1);
}

int stage_children(struct run *r, struct child *const *chs, int n)
{
	for (int i = 0; i < n; i++) {
		chs[i]->cancel = &r->cancel;
		/* untrusted output never fills the disk: a log keeps its head and tail */
		if (chs[i]->log_path && !chs[i]->log_max)
			stage_cap_output(chs[i]);
		chs[i]->tick = stage_tick;	/* each: the job stays alive while any runs */
		chs[i]->tick_arg = r;
	}
	return child_run_all(chs, n);
}

bool stage_flooded(const struct child *ch, const char *what, struct buf *why)
{
	if (!ch->log_cut)
		return false;
	buf_addf(why, "%s wrote %llu bytes of output, more than [runner] max_build_log (%zu)"
		 " keeps: its first and last halves are in the log, %llu bytes cut", what,
		 ch->log_total, ch->log_max, ch->log_cut);
	return true;
}

int stage_begin(struct run *r, struct variant *v, const char *stage)
{
	stage_end(r, "ok", NULL);
	r->stage_variant = v ? v->name : "patched";
	stage_tick(r);
	if (!r->job->id) {
		log_info("runner: %s: %s", r->stage_variant, stage);
		return 0;
	}
	return job_stage_begin(r->job, r->db, r->stage_variant, stage, &r->stage_id);
}

int stage_note(struct run *r, const char *detail)
{
	return job_stage_note(r->db, r->stage_id, detail);
}

int stage_end(struct run *r, const char *status, const char *detail)
{
	int ret = job_stage_end(r->db, r->stage_id, status, detail);

	r->stage_id = 0;
	return ret;
}

void stage_fail(struct variant *v, const char *verdict, const char *detail)
{
	/* without a candidate patch the base kernel's own behaviour is no one's fault */
	v->fault = v->npatches ? FAULT_PATCH : FAULT_NONE;
	v->verdict = verdict;
	buf_reset(&v->detail);
	buf_addstr(&v->detail, detail);
	stage_end(v->run, "failed", verdict);
}

void stage_blame(struct run *r, enum fault f, const char *fmt, ...)
{
	va_list ap;

	if (!r->infra.len)
		r->fault = f;
	va_start(ap, fmt);
	buf_vaddf(&r->infra, fmt, ap);
	va_end(ap);
}
