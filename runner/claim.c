/*
 * claim: the runner's outer loop.
 *
 *   --job ID   claim exactly that job, run it, exit
 *   --once     claim the next queued job (if any), run it, exit
 *   --warm     no job: build the seed a job would build first (warm.c), exit
 *   (neither)  claim, run, repeat; when the queue is empty, sleep until a
 *              job is queued (wake.h)
 *
 * [runner] parallel = N (N > 1, not with --job or --warm) forks N workers, each
 * with its own database connection, running this loop (with --once: one
 * job each, so up to N at once).  Claims are exclusive, so they never take
 * the same job; every job has its own directory and its own QEMU, and what
 * they share in the cache is made safe where it is written (the baseline
 * under a lock, seeds and suite builds renamed into place); each build
 * gets its share of the CPUs as the builds come and go (jobserver.c).
 * The parent only waits, and passes SIGTERM on.
 *
 * The exit code is ours, never the verdict's: 0 when the runner did its
 * work (whatever the job's verdict), 1 when it could not (database gone,
 * --job naming a job that is not queued).  SIGTERM stops the child in
 * flight, gives the job back to the queue (job_unclaim) and exits 0.
 */
#include "runner.h"
#include "run.h"
#include "fetch.h"
#include "buf.h"
#include "db.h"
#include "job.h"
#include "config.h"
#include "log.h"
#include "wake.h"
#include "xalloc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void runner_name(struct buf *out)
{
	char host[256] = "localhost";

	if (*cfg_str("runner.name")) {
		buf_addstr(out, cfg_str("runner.name"));
		return;
	}
	gethostname(host, sizeof(host) - 1);
	buf_addf(out, "%s:%d", host, (int)getpid());
}

/* --once found nothing to do: say whether something waits, and until when. */
static void no_job_due(struct db *db)
{
	long now = (long)time(NULL), due = job_next_due(db, now);
	char at[32];
	time_t t = (time_t)due;

	if (!due) {
		log_info("runner: no queued job");
		return;
	}
	strftime(at, sizeof(at), "%Y-%m-%d %H:%M:%S", gmtime(&t));
	log_info("runner: no job due; the next is due at %s UTC (in %ld s)", at, due - now);
}

/* How long an idle runner sleeps unless woken: 10 s, or until the next job is due. */
static int wait_ms(struct db *db)
{
	long now = (long)time(NULL), due = job_next_due(db, now);

	return due && due - now < 10 ? (int)(due - now) * 1000 + 100 : 10 * 1000;
}

static int runner_loop(struct db *db, const struct runner_opts *opts,
		       const volatile sig_atomic_t *stop)
{
	struct buf name = BUF_INIT;
	struct wake wake;
	int lease = cfg_int("runner.lease"), max = cfg_int("runner.max_attempts");
	int ret = 0;

	if (opts->warm)
		return run_warm(db, opts->base, stop);
	if (opts->fetch)
		return fetch_only(db, opts->base, stop);
	runner_name(&name);
	wake_open(&wake, db->path, WAKE_JOBS);
	while (!*stop) {
		struct job job = JOB_INIT;
		int rc = opts->job_id ? job_claim_id(db, opts->job_id, name.ptr, lease, max, &job)
				      : job_claim_next(db, name.ptr, lease, max, &job);
		if (rc < 0) {
			ret = -1;
			break;
		}
		if (rc == 0) {
			if (opts->job_id) {
				error("runner: job %lld is not queued", (long long)opts->job_id);
				ret = -1;
				break;
			}
			if (opts->once) {
				no_job_due(db);
				break;
			}
			/*
			 * Woken when a job is queued (wake.h); the timeout
			 * catches a job whose runner died and whose lease ran
			 * out, and one whose retry delay or budget day came.
			 */
			wake_wait(&wake, wait_ms(db));
			continue;
		}
		if (run_job(db, &job, stop))
			log_warn("runner: job %lld: could not record its outcome",
				 (long long)job.id);
		job_release(&job);
		if (opts->once || opts->job_id)
			break;
	}
	wake_close(&wake);
	buf_release(&name);
	return ret;
}

/* One worker: its own connection (an SQLite one must not cross a fork). */
static void worker(const char *path, const struct runner_opts *opts,
		   const volatile sig_atomic_t *stop)
{
	struct db db = { 0 };
	struct buf err = BUF_INIT;
	int ret = -1;

	if (db_open(&db, path, &err)) {
		error("runner: cannot open '%s': %s", path, err.ptr);
	} else {
		ret = runner_loop(&db, opts, stop);
		db_close(&db);
	}
	buf_release(&err);
	log_close();
	_exit(ret ? 1 : 0);
}

static int fleet(struct db *db, const struct runner_opts *opts,
		 const volatile sig_atomic_t *stop, int n)
{
	pid_t *pids = xcalloc(n, sizeof(*pids));
	int alive = 0, ret = 0, status;
	bool passed_on = false;

	log_info("runner: %d workers ([runner] parallel)", n);
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker(db->path, opts, stop);
		if (pids[i] < 0) {
			error("runner: cannot fork a worker: %s", strerror(errno));
			ret = -1;
			break;
		}
		alive++;
	}
	while (alive > 0) {
		pid_t pid = waitpid(-1, &status, 0);
		if (pid < 0 && errno != EINTR)
			break;
		if (pid > 0) {
			alive--;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				ret = -1;
		}
		if (*stop && !passed_on) {
			for (int i = 0; i < n; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGTERM);
			passed_on = true;
		}
	}
	free(pids);
	return ret;
}

int runner_main(struct db *db, const struct runner_opts *opts,
		const volatile sig_atomic_t *stop)
{
	long n = cfg_int("runner.parallel");

	if (n > 1 && !opts->job_id && !opts->warm && !opts->fetch)
		return fleet(db, opts, stop, (int)n);
	return runner_loop(db, opts, stop);
}
