/*
 * jobserver: how many CPUs a kernel build may use.  Every build on a cache
 * (the runner's [runner] parallel slots, --warm, other runners that share
 * the cache dir) counts itself while make runs, and each gets an equal
 * share of the host's CPUs: all of them when it runs alone.  Its share
 * follows the others while it runs: make is a client of a jobserver of its
 * own (GNU make's protocol: a pipe of tokens), which the runner tops up
 * when another build ends and drains when one starts.
 */
#ifndef BB_JOBSERVER_H
#define BB_JOBSERVER_H

#include <stdbool.h>
#include "buf.h"

struct run;

struct jobserver {
	int rd, wr;		/* the pipe make takes tokens from and gives back to */
	int lock;		/* our lock file in <cache>/builds/, held while make runs */
	char *dir;		/* <cache>/builds */
	char *name;		/* our file there */
	long ncpu;
	int builds;		/* builds running on the cache, ours included */
	int share;		/* CPUs this build may use now */
	int granted;		/* tokens in make's hands or its pipe (make has one more) */
	double last;		/* when the share was last looked at */
};
#define JOBSERVER_INIT { .rd = -1, .wr = -1, .lock = -1 }

/*
 * Count this build in and fill its pipe for its share; -1 (logged) when
 * that failed: the build then runs with make -j of the free CPUs.
 */
int jobserver_open(struct run *r, struct jobserver *js);
/* The MAKEFLAGS value that makes make a client: " -j --jobserver-auth=R,W". */
void jobserver_makeflags(const struct jobserver *js, struct buf *out);
/* About once a second while make runs: follow the other builds. */
void jobserver_tick(struct jobserver *js);
/* Count this build out; its pipe closed.  NULL-safe, idempotent. */
void jobserver_close(struct jobserver *js);
/* Pure: the share of ncpu CPUs of one of `builds` builds (at least 1). */
int jobserver_share(long ncpu, int builds);

#endif
