/*
 * child: fork/exec with a process group, a timeout and output capture.
 *
 * The parent polls the capture pipe with a 200 ms tick so it can enforce the
 * deadline and the cancel flag without signals or threads.
 */
#include "child.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	env = calloc(cap + 1, sizeof(*env));
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

static void exec_child(const struct child *ch, int capture_fd)
{
	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (ch->cwd && chdir(ch->cwd)) {
		dprintf(2, "cannot chdir to '%s': %s\n", ch->cwd, strerror(errno));
		_exit(126);
	}
	redirect(0, ch->stdin_path ? ch->stdin_path : "/dev/null", O_RDONLY);
	if (ch->log_path) {
		redirect(1, ch->log_path, O_WRONLY | O_CREAT | O_APPEND);
		dup2(1, 2);
		if (capture_fd >= 0)
			dup2(capture_fd, 1);
	} else if (capture_fd >= 0) {
		dup2(capture_fd, 1);
		dup2(capture_fd, 2);
	} else {
		redirect(1, "/dev/null", O_WRONLY);
		dup2(1, 2);
	}
	if (capture_fd > 2)
		close(capture_fd);
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

static void drain(int fd, struct buf *capture)
{
	char chunk[8192];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		if (capture)
			buf_add(capture, chunk, n);	/* the cap drops the rest */
}

int child_run(struct child *ch)
{
	int pipefd[2] = { -1, -1 };
	double start = now_seconds(), last_tick = start, term_sent = 0;
	int status = 0;
	bool exited = false;

	ch->timed_out = ch->cancelled = false;
	ch->exit_code = -1;
	if (ch->capture && pipe2(pipefd, O_CLOEXEC))
		return error("child: pipe: %s", strerror(errno));
	fflush(NULL);
	ch->pid = fork();
	if (ch->pid < 0) {
		int e = errno;
		if (pipefd[0] >= 0) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return error("child: fork: %s", strerror(e));
	}
	if (!ch->pid)
		exec_child(ch, pipefd[1]);
	setpgid(ch->pid, ch->pid);	/* also in the parent: no race with kill */
	if (pipefd[1] >= 0) {
		close(pipefd[1]);
		fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	}

	while (!exited) {
		double now;

		if (pipefd[0] >= 0) {
			struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
			if (poll(&p, 1, 200) > 0)
				drain(pipefd[0], ch->capture);
		} else {
			usleep(50 * 1000);
		}
		pid_t w = waitpid(ch->pid, &status, WNOHANG);
		if (w == ch->pid) {
			exited = true;
			break;
		}
		now = now_seconds();
		if (ch->tick && now - last_tick >= 1.0) {
			ch->tick(ch->tick_arg);
			last_tick = now;
		}
		if (!term_sent && ch->timeout && now - start > ch->timeout)
			ch->timed_out = true;
		if (!term_sent && ch->cancel && *ch->cancel)
			ch->cancelled = true;
		if (!term_sent && (ch->timed_out || ch->cancelled)) {
			kill_group(ch->pid, SIGTERM);
			term_sent = now;
		} else if (term_sent && now - term_sent > 5) {
			kill_group(ch->pid, SIGKILL);
		}
	}
	/* Reap whatever the group left running (make's children, qemu helpers). */
	kill_group(ch->pid, SIGKILL);
	if (pipefd[0] >= 0) {
		/* Non-blocking: a grandchild outside the group may hold the pipe. */
		drain(pipefd[0], ch->capture);
		close(pipefd[0]);
	}
	ch->seconds = now_seconds() - start;
	if (WIFEXITED(status))
		ch->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		ch->exit_code = 128 + WTERMSIG(status);
	if (ch->timed_out)
		return error("child: '%s' timed out after %d s, killed", ch->argv[0], ch->timeout);
	if (ch->cancelled)
		return error("child: '%s' cancelled, killed", ch->argv[0]);
	return 0;
}
