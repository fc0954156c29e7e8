/*
 * child: fork/exec with a process group, a timeout and output capture.
 *
 * The parent polls the capture pipe with a 200 ms tick so it can enforce the
 * deadline and the cancel flag without signals or threads.  child_run_all
 * runs several children at once the same way (the runner's shards of the
 * guest suite: one poll over all their pipes, each with its own clocks).
 */
#include "child.h"
#include "xalloc.h"
#include "log.h"
#include "ring.h"
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void child_describe(const struct child *ch, struct buf *out)
{
	for (int i = 0; ch->argv[i]; i++) {
		const char *a = ch->argv[i];
		if (i)
			buf_addch(out, ' ');
		if (!*a || strpbrk(a, " \t\"'"))
			buf_addf(out, "'%s'", a);
		else
			buf_addstr(out, a);
	}
}

static void redirect(int fd, const char *path, int flags)
{
	int f = open(path, flags, 0644);

	if (f < 0) {
		dprintf(2, "cannot open '%s': %s\n", path, strerror(errno));
		_exit(126);
	}
	if (f != fd) {
		dup2(f, fd);
		close(f);
	}
}

static char **child_environment(const struct child *ch)
{
	static const char *keep[] = { "PATH", "HOME", "TMPDIR", NULL };
	size_t n = 0, cap = 8;
	char **env;

	for (char **e = environ; *e; e++)
		cap++;
	for (const char *const *e = ch->env; e && *e; e++)
		cap++;
	env = calloc(cap + 1, sizeof(*env));	/* in the child: no abort() */
	if (!env)
		_exit(127);
	if (ch->clean_env) {
		for (int i = 0; keep[i]; i++) {
			const char *v = getenv(keep[i]);
			if (v && asprintf(&env[n], "%s=%s", keep[i], v) > 0)
				n++;
		}
		env[n++] = "LANG=C";
	} else {
		for (char **e = environ; *e; e++)
			env[n++] = *e;
	}
	for (const char *const *e = ch->env; e && *e; e++)
		env[n++] = (char *)*e;
	env[n] = NULL;
	return env;
}

static void exec_child(const struct child *ch, pid_t parent, int capture_fd, int log_fd)
{
	setpgid(0, 0);
	/*
	 * A parent killed with SIGKILL cannot kill our group: die with it, so
	 * no orphaned QEMU or make keeps running (its job is re-run anyway).
	 */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (ch->cwd && chdir(ch->cwd)) {
		dprintf(2, "cannot chdir to '%s': %s\n", ch->cwd, strerror(errno));
		_exit(126);
	}
	redirect(0, ch->stdin_path ? ch->stdin_path : "/dev/null", O_RDONLY);
	if (capture_fd < 0 && log_fd < 0)
		redirect(1, "/dev/null", O_WRONLY);
	else
		dup2(capture_fd >= 0 ? capture_fd : log_fd, 1);
	dup2(log_fd >= 0 ? log_fd : 1, 2);
	if (capture_fd > 2)
		close(capture_fd);
	if (log_fd > 2)
		close(log_fd);
	environ = child_environment(ch);
	execvp(ch->argv[0], (char *const *)ch->argv);
	dprintf(2, "cannot run '%s': %s\n", ch->argv[0], strerror(errno));
	_exit(127);
}

static void kill_group(pid_t pid, int sig)
{
	if (kill(-pid, sig) && errno == ESRCH)
		kill(pid, sig);
}

/* One pipe from the child: its output goes to the capture or to the log. */
struct stream {
	int fd;			/* read end, -1 when not used */
	int log_fd;		/* -1: the capture */
	bool capped;		/* log_max holds for this one (the log, else the capture) */
	size_t head_left;	/* log_max: what the head may still take */
	struct ring tail;	/* log_max: the output after the head */
};

/* Kept: to the log file, or (a capped capture) to the capture. */
static void log_write(struct child *ch, struct stream *s, const char *data, size_t n)
{
	if (!n)
		return;
	if (s->log_fd < 0)
		buf_add(ch->capture, data, n);
	else if (!ch->log_errno && write_in_full(s->log_fd, data, n) < 0)
		ch->log_errno = errno;
}

/* A chunk for the log: to the file while the head has room, then to the tail. */
static void log_chunk(struct child *ch, struct stream *s, const char *data, size_t n)
{
	size_t head = n;

	ch->log_total += n;
	if (s->capped) {
		head = s->tail.len ? 0 : n < s->head_left ? n : s->head_left;
		s->head_left -= head;
	}
	log_write(ch, s, data, head);
	if (n > head)
		ring_add(&s->tail, data + head, n - head);
}

/* At the end: the line saying what was cut, and the tail. */
static void log_tail(struct child *ch, struct stream *s)
{
	struct buf b = BUF_INIT;

	if (!s->tail.len)
		return;
	ch->log_cut = ch->log_total - (ch->log_max / 2 - s->head_left) - s->tail.len;
	if (ch->log_cut)
		buf_addf(&b, "\n[bugbridge: %llu bytes of output cut here: %llu were written, %s"
			 " keeps the first and last %zu]\n", ch->log_cut, ch->log_total,
			 ch->log_max_key ? ch->log_max_key : "the log", ch->log_max / 2);
	ring_text(&s->tail, &b);
	log_write(ch, s, b.ptr, b.len);
	buf_release(&b);
}

static size_t drain(struct child *ch, struct stream *s)
{
	char chunk[8192];
	size_t total = 0;
	ssize_t n = -1;

	while (s->fd >= 0 && (n = read(s->fd, chunk, sizeof(chunk))) > 0) {
		total += n;
		if (s->log_fd >= 0 || s->capped) {
			log_chunk(ch, s, chunk, n);
		} else if (ch->output) {
			ch->output(ch->output_arg, chunk, n);
		} else if (ch->capture) {
			buf_add(ch->capture, chunk, n);	/* the cap drops the rest */
		}
	}
	if (s->fd >= 0 && n == 0) {	/* end of file: stop polling it */
		close(s->fd);
		s->fd = -1;
	}
	return total;
}

static int open_pipe(struct stream *s, int *write_end)
{
	int fd[2];

	if (pipe2(fd, O_CLOEXEC))
		return -1;
	s->fd = fd[0];
	*write_end = fd[1];
	return 0;
}

static void close_streams(struct stream *s, int n)
{
	for (int i = 0; i < n; i++)
		if (s[i].fd >= 0) {
			close(s[i].fd);
			s[i].fd = -1;
		}
}

/* log_max over this stream: its head's room and its tail. */
static void cap_stream(const struct child *ch, struct stream *s)
{
	s->capped = ch->log_max > 0;
	s->head_left = ch->log_max / 2;
	ring_init(&s->tail, ch->log_max - ch->log_max / 2);
}

/* The pipes (capture, log) and the log file, before the fork. */
static int setup_streams(struct child *ch, struct stream *s, int *cap_w, int *log_w)
{
	if ((ch->capture || ch->output) && open_pipe(&s[0], cap_w))
		return error("child: pipe: %s", strerror(errno));
	if (!ch->log_path) {
		if (ch->capture && !ch->output)
			cap_stream(ch, &s[0]);
		return 0;
	}
	/* a log is a regular file, never a link or a FIFO (lib/safefile) */
	s[1].log_fd = safe_open_path(ch->log_path, SAFE_APPEND);
	if (s[1].log_fd < 0) {
		ch->log_errno = errno;
		return error("child: cannot open the log '%s': %s", ch->log_path,
			     safe_strerror(errno));
	}
	cap_stream(ch, &s[1]);
	if (open_pipe(&s[1], log_w))
		return error("child: pipe: %s", strerror(errno));
	return 0;
}

/* Fork and exec; the parent keeps only the read ends, non-blocking. */
static int spawn(struct child *ch, struct stream *s, int *cap_w, int *log_w)
{
	pid_t parent;

	fflush(NULL);
	parent = getpid();
	ch->pid = fork();
	if (ch->pid < 0)
		return error("child: fork: %s", strerror(errno));
	if (!ch->pid)
		exec_child(ch, parent, *cap_w, *log_w);
	setpgid(ch->pid, ch->pid);	/* also in the parent: no race with kill */
	for (int i = 0; i < 2; i++)
		if (s[i].fd >= 0)
			fcntl(s[i].fd, F_SETFL, O_NONBLOCK);
	if (*cap_w >= 0)
		close(*cap_w);
	if (*log_w >= 0)
		close(*log_w);
	*cap_w = *log_w = -1;
	return 0;
}

/* One child of a child_run_all: its pipes, its clocks, its end. */
struct running {
	struct child *ch;
	struct stream s[2];
	int cap_w, log_w;
	double start, last_tick, term_sent;	/* term_sent 0: no SIGTERM yet */
	bool done;
	int ret;
};

/*
 * Wait up to 200 ms (50 ms once every pipe is closed) and read what came
 * from any of the children.
 */
static void pump(struct running *rs, int n)
{
	struct pollfd *p = xcalloc(2 * n, sizeof(*p));
	size_t got = 0;
	bool open_fd = false;
	int np;

	for (int k = 0; k < n; k++)
		for (int i = 0; i < 2; i++) {
			p[2 * k + i] = (struct pollfd){ .fd = rs[k].s[i].fd, .events = POLLIN };
			open_fd |= rs[k].s[i].fd >= 0;
		}
	np = poll(p, 2 * n, open_fd ? 200 : 50);
	for (int k = 0; np > 0 && k < n; k++)
		for (int i = 0; i < 2; i++)
			if (p[2 * k + i].revents)
				got += drain(rs[k].ch, &rs[k].s[i]);
	free(p);
	/*
	 * QEMU writes a guest's console a byte per write(): waking for
	 * each would cost us more CPU than the guest.  Let it gather.
	 */
	if (got && got < 4096)
		usleep(20 * 1000);
}

/* Tick about once a second; on timeout or cancel SIGTERM, 5 s later SIGKILL. */
static void watch_child(struct running *c)
{
	struct child *ch = c->ch;
	double now = now_seconds();

	if (ch->tick && now - c->last_tick >= 1.0) {
		ch->tick(ch->tick_arg);
		c->last_tick = now;
	}
	if (!c->term_sent && ch->timeout && now - c->start > ch->timeout)
		ch->timed_out = true;
	if (!c->term_sent && ch->cancel && *ch->cancel)
		ch->cancelled = true;
	if (!c->term_sent && (ch->timed_out || ch->cancelled)) {
		kill_group(ch->pid, SIGTERM);
		c->term_sent = now;
	} else if (c->term_sent && now - c->term_sent > 5) {
		kill_group(ch->pid, SIGKILL);
	}
}

/* After the exit: the group reaped, the last output read, the results set. */
static int finish(struct child *ch, struct stream *s, int status, double start)
{
	/* Reap whatever the group left running (make's children, qemu helpers). */
	kill_group(ch->pid, SIGKILL);
	/* Non-blocking: a grandchild outside the group may hold a pipe. */
	drain(ch, &s[0]);
	drain(ch, &s[1]);
	for (int i = 0; i < 2; i++)
		if (s[i].capped)
			log_tail(ch, &s[i]);
	ch->seconds = now_seconds() - start;
	if (WIFEXITED(status))
		ch->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		ch->exit_code = 128 + WTERMSIG(status);
	if (ch->log_errno)
		log_warn("child: cannot write the log '%s': %s; the rest of the output was dropped",
			 ch->log_path, strerror(ch->log_errno));
	if (ch->timed_out)
		return error("child: '%s' timed out after %d s, killed", ch->argv[0], ch->timeout);
	if (ch->cancelled)
		return error("child: '%s' cancelled, killed", ch->argv[0]);
	return 0;
}

static void start_one(struct running *c, struct child *x)
{
	memset(c, 0, sizeof(*c));
	c->ch = x;
	c->s[0] = c->s[1] = (struct stream){ .fd = -1, .log_fd = -1 };
	c->cap_w = c->log_w = -1;
	c->start = c->last_tick = now_seconds();
	c->ret = -1;
	x->timed_out = x->cancelled = false;
	x->exit_code = -1;
	x->log_errno = 0;
	x->log_total = x->log_cut = 0;
	if (setup_streams(x, c->s, &c->cap_w, &c->log_w) || spawn(x, c->s, &c->cap_w, &c->log_w))
		c->done = true;
}

static void release_one(struct running *c)
{
	close_streams(c->s, 2);
	if (c->s[1].log_fd >= 0)
		close(c->s[1].log_fd);
	ring_release(&c->s[0].tail);
	ring_release(&c->s[1].tail);
	if (c->cap_w >= 0)
		close(c->cap_w);
	if (c->log_w >= 0)
		close(c->log_w);
}

int child_run_all(struct child *const *chs, int n)
{
	struct running *rs = xcalloc(n > 0 ? n : 1, sizeof(*rs));
	int left = 0, ret = 0, status;

	for (int k = 0; k < n; k++) {
		start_one(&rs[k], chs[k]);
		left += !rs[k].done;
	}
	/* Until every child exits: their output read, their clocks watched. */
	while (left > 0) {
		pump(rs, n);
		for (int k = 0; k < n; k++) {
			if (rs[k].done)
				continue;
			if (waitpid(rs[k].ch->pid, &status, WNOHANG) == rs[k].ch->pid) {
				rs[k].ret = finish(rs[k].ch, rs[k].s, status, rs[k].start);
				rs[k].done = true;
				left--;
			} else {
				watch_child(&rs[k]);
			}
		}
	}
	for (int k = 0; k < n; k++) {
		ret |= rs[k].ret;
		release_one(&rs[k]);
	}
	free(rs);
	return ret ? -1 : 0;
}

int child_run(struct child *ch)
{
	return child_run_all(&ch, 1);
}
