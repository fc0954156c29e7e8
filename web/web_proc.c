/*
 * web_proc: the dashboard runs in a process of its own, and bugbridged
 * keeps it running.
 *
 * Why: the dashboard parses whatever the network sends it, and bugbridged
 * holds the tracker key, the SMTP password and a writable database.  So
 * the dashboard is a fresh image of this binary (fork, then exec of
 * /proc/self/exe --web-child: nothing of bugbridged's memory survives into
 * it), started with a cleaned environment, given its configuration on a
 * pipe with every secret blanked but the API token it must check, and the
 * listening socket bugbridged opened.  It opens its read-only database
 * connections, on an export of what anyone may see that bugbridged keeps
 * up to date (privsep_export.c), never on bugbridged's database; gives up
 * root (web_child.c); and asks bugbridged over a socket for the few things
 * it may not do itself (privsep.h): queue a job for POST /api/jobs, open a
 * log, draw a page of the token holder, which may show private bugs.  Its log lines come back on a pipe and
 * are written to bugbridged's log, so log rotation (SIGHUP) needs nothing
 * of it.
 *
 * The alternative, a second database connection in the dashboard that may
 * only insert into jobs, would need SQLite authorizer rules to hold in a
 * process that parses hostile input; a message whose every field
 * bugbridged checks is smaller to get right.
 *
 * One thread here (the "monitor") serves the dashboard's messages on
 * bugbridged's own database connection, forwards its log, and starts it
 * again when it dies (after 1 s, doubling up to a minute while it keeps
 * dying).  SIGHUP restarts it with the configuration just read; SIGTERM
 * stops it before bugbridged exits.  It dies with bugbridged
 * (PR_SET_PDEATHSIG, and it stops when its socket closes).
 */
#include "web_proc.h"
#include "privsep.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* seconds the first start may take before bugbridged gives up */
#define WEB_START_TIMEOUT 30
#define WEB_LOG_LINE_MAX 16384

extern char **environ;

struct web {
	int listen_fd;
	pid_t pid;			/* 0: none running */
	int sock, log_fd;		/* bugbridged's ends; -1 when none */
	struct buf partial;		/* a log line not finished yet */
	struct db db;			/* bugbridged's connection for the messages */
	struct db full;			/* read-only, for the token holder's pages */
	struct privsep_server ps;	/* db, full and the dashboard's database */
	pthread_t thread;
	int wake[2];			/* web_stop/web_reload -> monitor */
	volatile int stopping, restart;	/* asked by web_stop, web_reload */
	bool restarting;		/* the dashboard was told to stop for a restart */
	time_t respawn_at;
	int backoff;			/* seconds before the next start after a death */
	time_t started_at;
	int level;			/* the log level the dashboard logs at */
};

/* The variables a dashboard may see: none of ours (BUGBRIDGE_* may hold secrets). */
static const char *const env_kept[] = {
	"PATH", "LANG", "LC_ALL", "TZ", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
};

static char **clean_env(void)
{
	size_t n = 0;
	char **env = xcalloc(sizeof(env_kept) / sizeof(env_kept[0]) + 1, sizeof(*env));

	for (size_t i = 0; i < sizeof(env_kept) / sizeof(env_kept[0]); i++) {
		const char *v = getenv(env_kept[i]);
		struct buf e = BUF_INIT;

		if (!v)
			continue;
		buf_addf(&e, "%s=%s", env_kept[i], v);
		env[n++] = buf_detach(&e, NULL);
	}
	return env;
}

static void free_env(char **env)
{
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	free(env);
}

/* Between fork and exec: only async-signal-safe calls. */
static void exec_child(const int *fds, pid_t parent, char *const *argv, char *const *env)
{
	static const int targets[] = { WEB_FD_CONFIG, 1, WEB_FD_LOG, WEB_FD_LISTEN,
				       WEB_FD_PRIVSEP };

	for (int i = 0; i < 5; i++)
		if (dup2(fds[i], targets[i]) < 0)
			_exit(126);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(126);
	syscall(SYS_close_range, 5U, ~0U, 0U);
	execve("/proc/self/exe", argv, env);
	_exit(127);
}

/* fd duplicated above the ones the child's are dup2'ed to. */
static int high(int fd)
{
	return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 10);
}

static void close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

static int spawn(struct web *w, struct buf *err)
{
	int sv[2] = { -1, -1 }, in[2] = { -1, -1 }, lg[2] = { -1, -1 }, hi[5];
	char *argv[] = { "bugbridged", "--web-child", NULL, NULL };
	struct buf conf = BUF_INIT;
	char level[4], **env = NULL;
	pid_t parent = getpid(), pid;
	int ret = -1;

	for (int i = 0; i < 5; i++)
		hi[i] = -1;
	snprintf(level, sizeof(level), "%d", w->level);
	argv[2] = level;
	if (config_write_restricted(cfg, "web.token", &conf, err))
		goto out;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) ||
	    pipe2(in, O_CLOEXEC) || pipe2(lg, O_CLOEXEC)) {
		buf_addf(err, "cannot make the dashboard's pipes: %s", strerror(errno));
		goto out;
	}
	hi[0] = high(in[0]);
	hi[1] = high(lg[1]);
	hi[2] = high(lg[1]);
	hi[3] = high(w->listen_fd);
	hi[4] = high(sv[1]);
	env = clean_env();
	pid = fork();
	if (pid < 0) {
		buf_addf(err, "cannot start the dashboard's process: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		exec_child(hi, parent, argv, env);
	w->pid = pid;
	w->started_at = time(NULL);
	w->sock = sv[0];
	w->log_fd = lg[0];
	sv[0] = lg[0] = -1;
	/* small (a few KiB): the pipe takes it whole, whenever the child reads */
	if (write_in_full(in[1], conf.ptr, conf.len))
		log_warn("web: cannot hand the dashboard its configuration: %s", strerror(errno));
	log_debug("web: dashboard process %d started", (int)pid);
	ret = 0;
out:
	if (conf.alloc)
		memset(conf.ptr, 0, conf.len);
	buf_release(&conf);
	close_fds(hi, 5);
	close_fds(sv, 2);
	close_fds(in, 2);
	close_fds(lg, 2);
	if (env)
		free_env(env);
	return ret;
}

/* Write the complete lines read from the dashboard's stderr to our log. */
static void forward_log(struct web *w)
{
	char chunk[8192];
	ssize_t n = read(w->log_fd, chunk, sizeof(chunk));
	char *nl;

	if (n <= 0)
		return;
	buf_add(&w->partial, chunk, (size_t)n);
	while ((nl = memchr(w->partial.ptr, '\n', w->partial.len))) {
		size_t len = (size_t)(nl - w->partial.ptr);

		log_write_line(w->partial.ptr, len);
		memmove(w->partial.ptr, nl + 1, w->partial.len - len - 1);
		buf_setlen(&w->partial, w->partial.len - len - 1);
	}
	if (w->partial.len > WEB_LOG_LINE_MAX) {
		log_write_line(w->partial.ptr, w->partial.len);
		buf_reset(&w->partial);
	}
}

/* Wait for the dashboard to exit (SIGKILL after `grace` seconds); forget it. */
static void reap(struct web *w, int grace)
{
	int status = 0;

	if (!w->pid)
		return;
	for (int i = 0; i < grace * 10; i++) {
		if (waitpid(w->pid, &status, WNOHANG) == w->pid)
			goto gone;
		struct timespec ts = { 0, 100 * 1000000L };
		nanosleep(&ts, NULL);
	}
	kill(w->pid, SIGKILL);
	waitpid(w->pid, &status, 0);
gone:
	while (w->log_fd >= 0 && poll(&(struct pollfd){ w->log_fd, POLLIN, 0 }, 1, 0) == 1) {
		size_t before = w->partial.len;

		forward_log(w);
		if (w->partial.len == before)
			break;
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) != SIGTERM)
		log_error("web: the dashboard's process %d died of signal %d", (int)w->pid,
			  WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		log_error("web: the dashboard's process %d exited with %d", (int)w->pid,
			  WEXITSTATUS(status));
	w->pid = 0;
	close_fds(&w->sock, 1);
	close_fds(&w->log_fd, 1);
	buf_reset(&w->partial);
}

/* One round of poll: messages, log lines, a death.  false when it died. */
static bool serve_once(struct web *w, int timeout_ms, bool *ready)
{
	struct pollfd p[3] = {
		{ w->sock, POLLIN, 0 }, { w->log_fd, POLLIN, 0 }, { w->wake[0], POLLIN, 0 },
	};
	int rc = poll(p, 3, timeout_ms);

	if (rc <= 0)
		return true;
	if (p[1].revents & POLLIN)
		forward_log(w);
	if (p[2].revents & POLLIN) {
		char c;

		while (read(w->wake[0], &c, 1) == 1)
			;
	}
	if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
		return privsep_serve(w->sock, &w->ps, ready) > 0;
	return true;
}

static void *monitor(void *arg)
{
	struct web *w = arg;
	bool ready = true;

	while (!w->stopping) {
		if (!w->pid) {
			struct buf err = BUF_INIT;

			if (time(NULL) < w->respawn_at) {
				serve_once(w, 1000, &ready);
				continue;
			}
			if (spawn(w, &err)) {
				log_error("web: %s", err.ptr);
				w->respawn_at = time(NULL) + w->backoff;
			}
			buf_release(&err);
			continue;
		}
		if (w->restart) {
			w->restart = 0;
			w->restarting = true;
			kill(w->pid, SIGTERM);
		}
		if (serve_once(w, 1000, &ready))
			continue;
		reap(w, 10);
		if (w->stopping)
			break;
		/* a restart asked for is at once; a death waits, longer each time it repeats */
		if (w->restarting) {
			w->restarting = false;
			w->respawn_at = 0;
			continue;
		}
		if (time(NULL) - w->started_at > 60)
			w->backoff = 1;
		w->respawn_at = time(NULL) + w->backoff;
		log_warn("web: starting the dashboard's process again in %d s", w->backoff);
		w->backoff = w->backoff < 60 ? 2 * w->backoff : 60;
	}
	return NULL;
}

/* The first start: serve until the dashboard says it is ready, or fail. */
static int first_start(struct web *w, struct buf *err)
{
	time_t deadline = time(NULL) + WEB_START_TIMEOUT;
	bool ready = false;

	if (spawn(w, err))
		return -1;
	while (!ready && time(NULL) < deadline)
		if (!serve_once(w, 200, &ready))
			break;
	if (ready)
		return 0;
	kill(w->pid, SIGTERM);
	reap(w, 5);
	buf_addstr(err, "the dashboard's process did not start (its reason is in the log)");
	return -1;
}

struct web *web_start(int log_level, struct buf *err)
{
	struct web *w = xcalloc(1, sizeof(*w));

	w->sock = w->log_fd = w->wake[0] = w->wake[1] = -1;
	w->backoff = 1;
	w->level = log_level;
	buf_init(&w->partial, 0);
	w->listen_fd = web_listen(cfg_str("web.listen"), err);
	if (w->listen_fd < 0)
		goto fail;
	if (pipe2(w->wake, O_CLOEXEC | O_NONBLOCK)) {
		buf_addf(err, "cannot make a pipe: %s", strerror(errno));
		goto fail;
	}
	if (db_open(&w->db, cfg_str("db.path"), err) ||
	    db_open_readonly(&w->full, cfg_str("db.path"), err))
		goto fail;
	w->ps = (struct privsep_server){ .db = &w->db, .full = &w->full };
	/* before the dashboard starts: it opens this file, and nothing else */
	w->ps.exp = web_export_open(err);
	if (!w->ps.exp || first_start(w, err))
		goto fail;
	if (pthread_create(&w->thread, NULL, monitor, w)) {
		buf_addstr(err, "cannot start the dashboard's monitor thread");
		kill(w->pid, SIGTERM);
		reap(w, 5);
		goto fail;
	}
	return w;
fail:
	web_export_close(w->ps.exp);
	db_close(&w->full);
	db_close(&w->db);
	close_fds(&w->listen_fd, 1);
	close_fds(w->wake, 2);
	buf_release(&w->partial);
	free(w);
	return NULL;
}

void web_reload(struct web *w)
{
	if (!w)
		return;
	w->level = log_get_level();
	w->restart = 1;
	if (write(w->wake[1], "r", 1) < 0 && errno != EAGAIN)
		log_warn("web: cannot wake the dashboard's monitor: %s", strerror(errno));
}

void web_stop(struct web *w)
{
	if (!w)
		return;
	w->stopping = 1;
	if (write(w->wake[1], "s", 1) < 0 && errno != EAGAIN)
		log_warn("web: cannot wake the dashboard's monitor: %s", strerror(errno));
	pthread_join(w->thread, NULL);
	if (w->pid) {
		kill(w->pid, SIGTERM);
		reap(w, 10);
	}
	web_export_close(w->ps.exp);
	db_close(&w->full);
	db_close(&w->db);
	close_fds(&w->listen_fd, 1);
	close_fds(w->wake, 2);
	buf_release(&w->partial);
	free(w);
}
