/*
 * wake: wake files and inotify.  See wake.h.
 */
#include "wake.h"
#include "buf.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

static const char *suffix(enum wake_what what)
{
	return what == WAKE_JOBS ? ".wake-jobs" : ".wake-verdicts";
}

static bool no_file(const char *db_path)
{
	return !db_path || !*db_path || !strcmp(db_path, ":memory:") ||
	       !strncmp(db_path, "file:", 5);
}

void wake_notify(const char *db_path, enum wake_what what)
{
	struct buf path = BUF_INIT;
	int fd;

	if (no_file(db_path))
		return;
	buf_addf(&path, "%s%s", db_path, suffix(what));
	/* the close of a file opened for writing is the event; 0666: any user of the db */
	fd = open(path.ptr, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
	if (fd >= 0)
		close(fd);
	buf_release(&path);
}

void wake_open(struct wake *w, const char *db_path, enum wake_what what)
{
	struct buf dir = BUF_INIT;
	const char *slash;

	w->fd = -1;
	w->name = NULL;
	if (no_file(db_path))
		return;
	slash = strrchr(db_path, '/');
	if (slash)
		buf_add(&dir, db_path, slash == db_path ? 1 : (size_t)(slash - db_path));
	else
		buf_addstr(&dir, ".");
	w->fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (w->fd >= 0 && inotify_add_watch(w->fd, dir.ptr, IN_CLOSE_WRITE) < 0) {
		close(w->fd);
		w->fd = -1;
	}
	if (w->fd >= 0) {
		struct buf name = BUF_INIT;
		buf_addf(&name, "%s%s", slash ? slash + 1 : db_path, suffix(what));
		w->name = buf_detach(&name, NULL);
	}
	buf_release(&dir);
}

/* Read what is queued; true if our file was among it. */
static bool drain(struct wake *w)
{
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool ours = false;
	ssize_t n;

	while ((n = read(w->fd, ev, sizeof(ev))) > 0) {
		for (char *p = ev; p < ev + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;
			if (e->len && !strcmp(e->name, w->name))
				ours = true;
			p += sizeof(*e) + e->len;
		}
	}
	return ours;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int wake_wait(struct wake *w, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	struct pollfd pfd;

	if (w->fd < 0) {
		struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
		return 0;
	}
	pfd.fd = w->fd;
	pfd.events = POLLIN;
	for (;;) {
		long long left = deadline - now_ms();
		int rc = left > 0 ? poll(&pfd, 1, (int)left) : 0;
		if (rc <= 0)
			return 0;	/* timeout, or a signal the caller will look at */
		if (drain(w))
			return 1;
		/* another file of the directory was written: wait on */
	}
}

void wake_close(struct wake *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->name);
	w->fd = -1;
	w->name = NULL;
}
