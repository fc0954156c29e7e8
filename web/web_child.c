/*
 * web_child: the dashboard's process (see web_proc.c for why it exists).
 *
 * Started by bugbridged as `bugbridged --web-child LEVEL` with these open
 * (web_proc.h): stdin, its configuration, in which every secret is empty
 * and the API token is its SHA-256 (enough to check a request's, not to
 * make one up); stderr, a pipe bugbridged writes to its log; fd 3, the
 * listening socket; fd 4, privsep.h's socket.  Its environment holds none
 * of bugbridged's variables.  In order, it
 *
 *   1. reads and installs that configuration;
 *   2. opens all its database connections, read-only, on the export of the
 *      database's public rows that bugbridged keeps (http_db.c,
 *      privsep_export.c), never on bugbridged's database;
 *   3. gives up root if it has it: [web] user (default nobody), no
 *      supplementary groups, no way back, no new privileges, not dumpable;
 *   4. where the kernel has Landlock, gives up opening any file, making any
 *      TCP connection, and signalling any process outside itself: it has
 *      open all it will ever need, and asks bugbridged for logs;
 *   5. serves, until SIGTERM or until bugbridged is gone (the parent-death
 *      signal, or its socket closing).
 *
 * It ends with _exit(): nothing of it outlives it, and a sanitizer's leak
 * check (which would trace this undumpable process) has nothing to say.
 */
#include "web_proc.h"
#include "http.h"
#include "privsep.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <errno.h>
#include <grp.h>
#include <linux/landlock.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WEB_CONFIG_MAX (1 << 20)

static volatile sig_atomic_t child_stop;

static void on_stop(int sig)
{
	(void)sig;
	child_stop = 1;
}

static void child_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGHUP, SIG_IGN);	/* bugbridged reloads, then starts us again */
	signal(SIGPIPE, SIG_IGN);
}

static int read_config(struct buf *err)
{
	struct buf text = BUF_INIT;
	struct config c;
	char chunk[4096];
	ssize_t n;
	int ret = -1;

	buf_init(&text, WEB_CONFIG_MAX);
	while ((n = read(WEB_FD_CONFIG, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || buf_add(&text, chunk, (size_t)n)) {
			buf_addstr(err, "cannot read the configuration bugbridged passes");
			goto out;
		}
	}
	config_init(&c);
	if (config_parse(&c, text.ptr, "(bugbridged's configuration)", err)) {
		config_release(&c);
		goto out;
	}
	config_install(&c);
	http_token_hashed();	/* [web] token is the token's SHA-256 */
	ret = 0;
out:
	if (text.alloc)
		memset(text.ptr, 0, text.len);
	buf_release(&text);
	memset(chunk, 0, sizeof(chunk));
	return ret;
}

static int drop_root(struct buf *err)
{
	const char *user = cfg_str("web.user");
	struct passwd *pw;

	if (geteuid() != 0)
		return 0;
	pw = getpwnam(user);
	if (!pw || !pw->pw_uid) {
		buf_addf(err, "[web] user '%s' %s", user,
			 pw ? "is root: the dashboard must not run as root" : "does not exist");
		return -1;
	}
	if (setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid)) {
		buf_addf(err, "cannot become [web] user '%s': %s", user, strerror(errno));
		return -1;
	}
	if (!setuid(0)) {
		buf_addstr(err, "could become root again after dropping it");
		return -1;
	}
	log_debug("web: dashboard runs as %s (uid %d)", user, (int)pw->pw_uid);
	return 0;
}

/* The parts of struct landlock_ruleset_attr that later kernels know. */
struct ruleset_attr {
	uint64_t fs, net, scoped;
};

/* Open no file, connect nowhere, signal nobody outside: all of it is open already. */
static void confine(void)
{
	struct ruleset_attr attr = {
		.fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
		      LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
		      LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
		      LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
		      LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
		      LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		      LANDLOCK_ACCESS_FS_MAKE_SYM,
	};
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);
	size_t size = sizeof(attr.fs);
	int fd;

	if (abi < 1) {
		log_info("web: no Landlock in this kernel: the dashboard's process can still"
			 " open files its user may read");
		return;
	}
	if (abi >= 2)
		attr.fs |= 1ULL << 13;		/* REFER */
	if (abi >= 3)
		attr.fs |= 1ULL << 14;		/* TRUNCATE */
	if (abi >= 4) {
		attr.net = 3;			/* BIND_TCP, CONNECT_TCP */
		size = 2 * sizeof(uint64_t);
	}
	if (abi >= 6) {
		attr.scoped = 3;		/* ABSTRACT_UNIX_SOCKET, SIGNAL */
		size = sizeof(attr);
	}
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0 || syscall(SYS_landlock_restrict_self, fd, 0)) {
		log_warn("web: cannot confine the dashboard with Landlock: %s", strerror(errno));
	} else {
		log_debug("web: dashboard confined (Landlock ABI %ld)", abi);
	}
	if (fd >= 0)
		close(fd);
}

/* Until SIGTERM, or until bugbridged's end of the socket is gone. */
static void serve_until_stopped(void)
{
	while (!child_stop) {
		struct pollfd p = { WEB_FD_PRIVSEP, 0, 0 };

		if (poll(&p, 1, 1000) == 1 && (p.revents & (POLLHUP | POLLERR))) {
			log_info("web: bugbridged is gone; the dashboard stops");
			break;
		}
	}
}

int web_child_main(int argc, char **argv)
{
	struct http_server *srv = NULL;
	struct buf err = BUF_INIT;
	int level = argc > 2 ? atoi(argv[2]) : LOG_INFO;

	child_signals();
	log_open(NULL, level >= LOG_ERROR && level <= LOG_DEBUG ? level : LOG_INFO);
	if (prctl(PR_SET_DUMPABLE, 0) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		buf_addf(&err, "cannot restrict the process: %s", strerror(errno));
		goto fail;
	}
	if (read_config(&err) || http_db_open((int)cfg_int("web.threads"), &err) ||
	    drop_root(&err))
		goto fail;
	confine();
	srv = http_start(WEB_FD_LISTEN, &err);
	if (!srv)
		goto fail;
	privsep_client_init(WEB_FD_PRIVSEP);
	if (privsep_ready()) {
		buf_addstr(&err, "cannot tell bugbridged that the dashboard serves");
		goto fail;
	}
	serve_until_stopped();
	http_stop(srv);
	http_db_close();
	_exit(0);
fail:
	log_error("web: the dashboard cannot start: %s", err.ptr);
	_exit(1);
}
