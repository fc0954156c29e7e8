/*
 * jobserver: a build's share of the CPUs, as the builds come and go.
 *
 * While make runs, each build holds an exclusive flock on a file of its own
 * in <cache>/builds/ (made under another name, locked, then renamed in, so
 * that a counter never sees it unlocked); the builds running are the files
 * whose lock is held, and a file whose lock is free was left by a runner
 * that died, and is removed.  A build's share is the CPUs divided among
 * the builds, rounded up, never less than one.
 *
 * GNU make lets a jobserver outside it decide how many jobs it runs: it
 * finds "--jobserver-auth=R,W" in MAKEFLAGS (with no -j of its own on the
 * command line), and before each job past the first it takes a token (a
 * byte) from the pipe R and gives it back to W when the job ends.  Each
 * build gets a pipe of its own, with share - 1 tokens in it.  Every tick
 * the runner counts the builds again: a larger share writes tokens in, a
 * smaller one reads them out (those make holds come back when its jobs
 * end, and are read out then).  So a build that runs alone gets every CPU,
 * and two builds share them, also when one started while the other ran.
 *
 * The pipe is the build's own, never another's: a patched build (untrusted
 * code) that writes tokens into it, or keeps them, changes only how many
 * jobs it runs itself, which its Makefile could choose anyway.
 */
#include "jobserver.h"
#include "run.h"
#include "buf.h"
#include "log.h"
#include "paths.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#define TICK_SECONDS 2.0

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int jobserver_share(long ncpu, int builds)
{
	long share;

	if (ncpu < 1)
		ncpu = 1;
	if (builds < 1)
		builds = 1;
	share = (ncpu + builds - 1) / builds;
	return share < 1 ? 1 : (int)share;
}

/* Is the lock of dir/name held?  A free one was left by a runner that died: removed. */
static bool held(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	bool busy;

	if (fd < 0)
		return false;
	busy = flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	if (!busy)
		unlinkat(dirfd, name, 0);
	close(fd);
	return busy;
}

/* The builds running on this cache, ours included. */
static int count_builds(const struct jobserver *js)
{
	DIR *d = opendir(js->dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "build-", 6))
			continue;
		if (!strcmp(e->d_name, js->name) || held(dirfd(d), e->d_name))
			n++;
	}
	if (d)
		closedir(d);
	return n > 0 ? n : 1;
}

/* Tokens in (or out) until make may run `share` jobs: its own one and the pipe's. */
static void resize(struct jobserver *js, int share)
{
	char tokens[64];
	ssize_t n;

	memset(tokens, '+', sizeof(tokens));
	while (js->granted < share - 1) {
		int want = share - 1 - js->granted;

		n = write(js->wr, tokens, want < (int)sizeof(tokens) ? want : (int)sizeof(tokens));
		if (n <= 0)
			break;		/* a full pipe: the build wrote tokens of its own */
		js->granted += n;
	}
	while (js->granted > share - 1) {
		int want = js->granted - (share - 1);

		/* non-blocking: the tokens make holds are read out when it gives them back */
		n = read(js->rd, tokens, want < (int)sizeof(tokens) ? want : (int)sizeof(tokens));
		if (n <= 0)
			break;
		js->granted -= n;
	}
	js->share = share;
}

/* Our file in dir, locked before it is there to be counted. */
static int count_in(struct jobserver *js)
{
	struct buf tmp = BUF_INIT, path = BUF_INIT;
	int ret = -1;

	buf_addf(&tmp, "%s/.new-%d", js->dir, (int)getpid());
	js->lock = open(tmp.ptr, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (js->lock < 0 || flock(js->lock, LOCK_EX)) {
		error("cannot lock '%s': %s", tmp.ptr, strerror(errno));
		goto out;
	}
	buf_addf(&path, "%s/build-%d-%ld", js->dir, (int)getpid(), (long)time(NULL));
	if (rename(tmp.ptr, path.ptr)) {
		error("cannot rename '%s': %s", tmp.ptr, strerror(errno));
		goto out;
	}
	js->name = xstrdup(strrchr(path.ptr, '/') + 1);
	ret = 0;
out:
	if (ret)
		unlink(tmp.ptr);
	buf_release(&tmp);
	buf_release(&path);
	return ret;
}

int jobserver_open(struct run *r, struct jobserver *js)
{
	struct buf dir = BUF_INIT;
	int fds[2];

	*js = (struct jobserver)JOBSERVER_INIT;
	js->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (js->ncpu < 1)
		js->ncpu = 1;
	buf_addf(&dir, "%s/builds", r->cache);
	js->dir = buf_detach(&dir, NULL);
	if (mkdir_p(js->dir, 0755) || count_in(js))
		goto fail;
	/* inherited by make (no O_CLOEXEC): the build is the only child while it runs */
	if (pipe2(fds, O_NONBLOCK)) {
		error("cannot make a jobserver pipe: %s", strerror(errno));
		goto fail;
	}
	js->rd = fds[0];
	js->wr = fds[1];
	js->builds = count_builds(js);
	resize(js, jobserver_share(js->ncpu, js->builds));
	js->last = now_mono();
	return 0;
fail:
	jobserver_close(js);
	return -1;
}

void jobserver_makeflags(const struct jobserver *js, struct buf *out)
{
	buf_addf(out, " -j --jobserver-auth=%d,%d", js->rd, js->wr);
}

void jobserver_tick(struct jobserver *js)
{
	double now = now_mono();
	int builds, share;

	if (!js || js->rd < 0 || now - js->last < TICK_SECONDS)
		return;
	js->last = now;
	builds = count_builds(js);
	share = jobserver_share(js->ncpu, builds);
	if (builds != js->builds)
		log_info("runner: build: %d builds on this cache now: this one's share is %d of %ld CPUs",
			 builds, share, js->ncpu);
	js->builds = builds;
	resize(js, share);
}

void jobserver_close(struct jobserver *js)
{
	struct buf path = BUF_INIT;

	if (!js)
		return;
	if (js->rd >= 0)
		close(js->rd);
	if (js->wr >= 0)
		close(js->wr);
	if (js->name) {
		buf_addf(&path, "%s/%s", js->dir, js->name);
		unlink(path.ptr);
	}
	if (js->lock >= 0)
		close(js->lock);
	free(js->dir);
	free(js->name);
	buf_release(&path);
	*js = (struct jobserver)JOBSERVER_INIT;
}
