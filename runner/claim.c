/*
 * claim: the runner's outer loop.
 *
 *   --job ID   claim exactly that job, run it, exit
 *   --once     claim the next queued job (if any), run it, exit
 *   --warm     no job: build the seed a job would build first (warm.c), exit
 *   (neither)  claim, run, repeat; when the queue is empty, sleep until a
 *              job is queued (wake.h)
 *
 * The exit code is ours, never the verdict's: 0 when the runner did its
 * work (whatever the job's verdict), 1 when it could not (database gone,
 * --job naming a job that is not queued).  SIGTERM stops the child in
 * flight, gives the job back to the queue (job_unclaim) and exits 0.
 */
#include "runner.h"
#include "claim.h"
#include "config.h"
#include "log.h"
#include "wake.h"

#include <stdio.h>
#include <string.h>
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

int runner_main(struct db *db, const struct runner_opts *opts,
		const volatile sig_atomic_t *stop)
{
	struct buf name = BUF_INIT;
	struct wake wake;
	int lease = cfg_int("runner.lease"), max = cfg_int("runner.max_attempts");
	int ret = 0;

	if (opts->warm)
		return run_warm(db, stop);
	runner_name(&name);
	wake_open(&wake, db->path, WAKE_JOBS);
	while (!*stop) {
		struct job job = JOB_INIT;
		int rc = opts->job_id ? job_claim_id(db, opts->job_id, name.ptr, lease, max, &job)
				      : job_claim_next(db, name.ptr, lease, max, &job);
		if (rc < 0) {
			ret = 1;
			break;
		}
		if (rc == 0) {
			if (opts->job_id) {
				error("runner: job %lld is not queued", (long long)opts->job_id);
				ret = 1;
				break;
			}
			if (opts->once) {
				log_info("runner: no queued job");
				break;
			}
			/*
			 * Woken when a job is queued (wake.h); the timeout only
			 * catches a job whose runner died and whose lease ran out.
			 */
			wake_wait(&wake, 10 * 1000);
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
