/*
 * child: the one way bugbridge starts another program.
 *
 * An argv vector (never a shell string), an optional environment, working
 * directory, log file, output capture, wall-clock timeout and cancellation.
 * The child leads its own process group, so a timeout or cancel kills make's
 * or qemu's whole tree (SIGTERM, then SIGKILL after a grace period), and
 * nothing it left behind survives the call.
 *
 * The log file is written by us, not by the child, through a pipe: a log we
 * cannot write (a full disk) is then our error, seen in log_errno, and not a
 * "write error: stdout" that would make the child fail and look like the
 * fault of whatever it was building.
 *
 *   struct child ch = CHILD_INIT;
 *   const char *argv[] = { "make", "-j2", "bzImage", NULL };
 *   ch.argv = argv; ch.cwd = tree; ch.log_path = "build.log"; ch.timeout = 1800;
 *   if (child_run(&ch)) ...            // could not start, or killed
 *   else if (ch.exit_code) ...         // ran and failed
 */
#ifndef BB_CHILD_H
#define BB_CHILD_H

#include <stdbool.h>
#include <sys/types.h>
#include "buf.h"

struct child {
	const char *const *argv;	/* argv[0] is looked up in PATH */
	const char *const *env;		/* extra "KEY=value" entries, or NULL */
	bool clean_env;			/* start from PATH, HOME, LANG=C only */
	const char *cwd;
	const char *stdin_path;		/* NULL: /dev/null */
	const char *log_path;		/* stdout+stderr appended here */
	/*
	 * 0: all of it; else the log keeps the output's first log_max/2 bytes
	 * as they come, its last log_max/2 (written at the end) and between
	 * them a line saying how much was cut, naming log_max_key.  Without a
	 * log_path the capture is kept so instead (apply's and gcov's output).
	 */
	size_t log_max;
	const char *log_max_key;
	struct buf *capture;		/* stdout (and stderr when log_path is NULL) */
	/* or, instead of capture, each chunk of that output as it comes */
	void (*output)(void *arg, const char *data, size_t len);
	void *output_arg;
	int timeout;			/* seconds; 0: none */
	const volatile int *cancel;	/* non-zero: kill the child */
	/* called about once a second while the child runs (leases, progress) */
	void (*tick)(void *arg);
	void *tick_arg;

	/* results */
	pid_t pid;
	int exit_code;			/* exit status, or 128+signal */
	bool timed_out;
	bool cancelled;
	double seconds;			/* wall time */
	/*
	 * errno of the first failed write to log_path (ENOSPC: disk full); the
	 * rest of the output was read and dropped, so the child never noticed.
	 */
	int log_errno;
	unsigned long long log_total;	/* bytes of output for the log (or the capped capture) */
	unsigned long long log_cut;	/* of those, left out by log_max */
};

#define CHILD_INIT { 0 }

/*
 * Run to completion.  Returns 0 when the program ran and exited by itself
 * (look at exit_code), -1 when it could not be started, timed out or was
 * cancelled (error logged; timed_out/cancelled say which).
 */
int child_run(struct child *ch);
/*
 * Run n children at once, each as child_run would (its own timeout,
 * cancel, log and tick); return when every one has ended.  0 when each ran
 * and exited by itself, -1 when any could not start, timed out or was
 * cancelled (each child's fields say which).
 */
int child_run_all(struct child *const *chs, int n);

/* "make -j2 bzImage" for logs; arguments with blanks are quoted. */
void child_describe(const struct child *ch, struct buf *out);

#endif
