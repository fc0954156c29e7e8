/*
 * progress: what a kernel build has done, read from its own output.
 *
 * kbuild prints one line per step ("  CC      drivers/scsi/sr.o"); the
 * build log grows while make runs.  Every tick (stage.c, about once a
 * second) the new part of the log is read and its CC and AS lines counted:
 * objects compiled.  Of how many: a full build of the base compiles as
 * many as the last full build on this cache did (<cache>/seed/full-build,
 * "SECONDS OBJECTS", kept by warm_record), so the line says "412 of 852
 * objects compiled, about 3 min left" from the rate so far; an incremental
 * build compiles what the patch touched, and says how many so far and
 * which step make is at.  The line goes to the job's progress (job show,
 * the job page) every 2 s, and for --warm (no job) to standard output every
 * 20 s.
 */
#include "run.h"
#include "stage.h"
#include "buf.h"
#include "db.h"
#include "estimate.h"
#include "job.h"
#include "log.h"
#include "safefile.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

DB_SQL(sql_progress_measure,
       "UPDATE job_stages SET build_kind = ?1, objects = ?2 WHERE id = ?3");

/* The build's stage row: its kind and the objects compiled so far. */
static void measure(struct run *r, const struct build_progress *p)
{
	sqlite3_stmt *st;

	if (!r->job->id || !r->stage_id || !(st = db_stmt(r->db, sql_progress_measure)))
		return;
	db_bind_text(st, 1, p->v->seeded ? "incremental" : "full");
	sqlite3_bind_int(st, 2, p->done);
	sqlite3_bind_int64(st, 3, r->stage_id);
	db_step_done(r->db, st);	/* only a measurement lost */
}

/* Of how many objects, and how long, a full build of the job's base is. */
static void full_build(struct run *r, struct build_progress *p)
{
	struct est_stats s;
	double secs;

	if (!est_stats_load(r->db, &s) && est_full_build(&s, r->job->base, &secs, &p->total))
		p->total_secs = secs;
	else if (!warm_last(r, &secs, &p->total))
		p->total_secs = secs;
	est_stats_release(&s);
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One line of make's output. */
static void count_line(struct build_progress *p, const char *l)
{
	if (strncmp(l, "  ", 2) || l[2] < 'A' || l[2] > 'Z')
		return;
	if (!strncmp(l, "  CC ", 5) || !strncmp(l, "  AS ", 5))
		p->done++;
	buf_reset(&p->step);
	for (l += 2; *l; l++)	/* "CC      x.o" -> "CC x.o" */
		if (*l != ' ' || (p->step.len && p->step.ptr[p->step.len - 1] != ' '))
			buf_addch(&p->step, *l);
	buf_trim(&p->step);
}

static void read_new(struct build_progress *p)
{
	char chunk[65536];
	int fd = safe_open_path(p->log_path, SAFE_READ);	/* a log: never a link or a FIFO */
	ssize_t n;

	if (fd < 0)
		return;
	if (lseek(fd, p->off, SEEK_SET) == p->off) {
		while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
			p->off += n;
			for (ssize_t i = 0; i < n; i++) {
				if (chunk[i] != '\n') {
					buf_addch(&p->line, chunk[i]);
					continue;
				}
				count_line(p, p->line.ptr);
				buf_reset(&p->line);
			}
		}
	}
	close(fd);
}

void progress_start(struct run *r, struct build_progress *p, struct variant *v,
		    const char *log_path)
{
	struct stat st;

	memset(p, 0, sizeof(*p));
	p->v = v;
	p->log_path = log_path;
	/* the logs are written by us (lib/child.c's pipe), never bound into a sandbox */
	p->off = stat(log_path, &st) ? 0 : st.st_size;
	p->start = p->last = now_mono();
	buf_init(&p->line, 256);
	buf_init(&p->step, 256);
	if (!v->seeded)
		full_build(r, p);
	r->progress = p;
	measure(r, p);
}

void progress_stop(struct run *r, struct build_progress *p)
{
	read_new(p);		/* p->done: every object of the build */
	measure(r, p);
	r->progress = NULL;
	buf_release(&p->line);
	buf_release(&p->step);
}

void progress_text(const struct build_progress *p, double elapsed, struct buf *out)
{
	long left;

	if (p->total > 0 && p->done <= p->total) {
		buf_addf(out, "%s: build: %d of %d objects compiled", p->v->name, p->done, p->total);
		left = p->done > 20 ? (long)(elapsed * (p->total - p->done) / p->done)
				    : (long)(p->total_secs - elapsed);
		if (left > 0)
			buf_addf(out, ", about %ld min %02ld s left", left / 60, left % 60);
	} else {
		buf_addf(out, "%s: build%s: %d objects compiled", p->v->name,
			 p->v->seeded ? " (incremental)" : "", p->done);
	}
	if (p->step.len)
		buf_addf(out, " (%s)", p->step.ptr);
}

void progress_tick(struct run *r)
{
	struct build_progress *p = r->progress;
	double t = now_mono();
	struct buf text = BUF_INIT;

	if (t - p->last < (r->job->id ? 2 : 20))
		return;
	p->last = t;
	read_new(p);
	progress_text(p, t - p->start, &text);
	if (r->job->id) {
		job_progress(r->job, r->db, "build", text.ptr);
		measure(r, p);
	} else {
		printf("bugbridge-runner: %s\n", text.ptr);
		fflush(stdout);
	}
	buf_release(&text);
}
