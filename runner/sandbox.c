/*
 * sandbox: confining everything that runs code or reads data from a patch.
 *
 * A kernel build runs the tree's Makefiles, scripts and Kconfig, and the
 * kernel it makes runs in QEMU, so a patch from the tracker is code we
 * execute.  Apply, configure, build, gcov and QEMU therefore run under
 * bubblewrap, each in a new root that holds only
 *   - /usr read-only (and the /bin, /lib symlinks into it),
 *   - a minimal /etc: passwd, group, the ld.so config and cache, and the
 *     alternatives symlinks (awk, cc); never /etc/bugbridge or the rest,
 *   - the job's tree at /bb/src (read-only, or read-write while patch
 *     applies), its O= dir at /bb/src/out, the ccache at /bb/ccache
 *     (read-only for a patched build), and for QEMU the kernel, initramfs
 *     and disk images at their own paths;
 * in new PID, IPC, UTS, mount, cgroup and network namespaces (no network
 * at all), with --die-with-parent: bwrap's init is PID 1 of the job, and
 * when the command ends (or the runner dies) the kernel kills everything
 * left in the namespace, a setsid daemon included.  Inside, prlimit caps
 * CPU seconds, address space, file size and processes, and the command
 * runs as an unprivileged uid:
 *   - runner root: setpriv drops to [runner] build_user (a name or a
 *     number: a uid of its own is best), no_new_privs, no capabilities;
 *   - runner not root: a user namespace maps the runner's uid to 65534
 *     inside, with no capabilities.
 * The database, the configuration, the logs, the base tree, the seed
 * builds and the other jobs are simply not there.
 *
 * The fixed /bb paths are also what makes builds incremental across jobs:
 * every job's kbuild sees the same source and object paths, so a seeded
 * O= dir and ccache entries match.
 *
 * Without a working bwrap nothing untrusted runs (infra-error, see
 * sandbox_check), unless the operator sets [runner] unconfined = true:
 * then "unshare" only takes the network away and "none" nothing at all.
 */
#include "sandbox.h"
#include "paths.h"
#include "buf.h"
#include "child.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Per process: CPU seconds come from the stage's timeout. */
#define LIMIT_AS_BUILD	(4ull << 30)
#define LIMIT_AS_QEMU	(16ull << 30)
#define LIMIT_FSIZE	(4ull << 30)
#define LIMIT_NPROC	2048

static const char *resolved_mode;
static char probe_why[256];

static void push(struct sandbox_cmd *cmd, const char *arg)
{
	if (cmd->argc + 2 > cmd->alloc) {
		cmd->alloc = cmd->alloc ? cmd->alloc * 2 : 64;
		cmd->argv = xrealloc(cmd->argv, cmd->alloc * sizeof(*cmd->argv));
	}
	cmd->argv[cmd->argc++] = xstrdup(arg);
	cmd->argv[cmd->argc] = NULL;
}

static void push3(struct sandbox_cmd *cmd, const char *a, const char *b, const char *c)
{
	push(cmd, a);
	push(cmd, b);
	if (c)
		push(cmd, c);
}

static void pushf(struct sandbox_cmd *cmd, const char *fmt, unsigned long long v)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, fmt, v);
	push(cmd, b.ptr);
	buf_release(&b);
}

void sandbox_cmd_release(struct sandbox_cmd *cmd)
{
	for (int i = 0; i < cmd->argc; i++)
		free(cmd->argv[i]);
	free(cmd->argv);
	free(cmd->ccache_dir);
	memset(cmd, 0, sizeof(*cmd));
}

int sandbox_build_ids(uid_t *uid, gid_t *gid)
{
	const char *user = cfg_str("runner.build_user");
	struct passwd *pw;
	char *end;
	unsigned long n;

	if (geteuid() != 0 || !*user)
		return -1;
	n = strtoul(user, &end, 10);
	if (!*end && n > 0 && n < 0xfffffffe) {
		*uid = n;		/* a uid of its own, in no passwd file */
		*gid = n;
		return 0;
	}
	pw = getpwnam(user);
	if (!pw)
		return error("runner: build user '%s' does not exist", user);
	if (!pw->pw_uid)
		return error("runner: build user '%s' is root", user);
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

/* /usr, the /bin, /lib symlinks into it, and the little of /etc programs need. */
static void bind_system(struct sandbox_cmd *cmd)
{
	static const char *const dirs[] = { "/bin", "/sbin", "/lib", "/lib64", "/lib32", NULL };
	static const char *const etc[] = { "/etc/passwd", "/etc/group", "/etc/ld.so.cache",
					   "/etc/ld.so.conf", "/etc/ld.so.conf.d",
					   "/etc/alternatives", NULL };

	push3(cmd, "--ro-bind", "/usr", "/usr");
	for (int i = 0; dirs[i]; i++) {
		char target[256];
		ssize_t n = readlink(dirs[i], target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			push3(cmd, "--symlink", target, dirs[i]);
		} else if (path_exists(dirs[i])) {
			push3(cmd, "--ro-bind", dirs[i], dirs[i]);
		}
	}
	/* bwrap makes missing parents 0700: the build user must get into /etc */
	push3(cmd, "--perms", "0755", NULL);
	push3(cmd, "--dir", "/etc", NULL);
	for (int i = 0; etc[i]; i++)
		push3(cmd, "--ro-bind-try", etc[i], etc[i]);
}

/* prlimit, then (as root) setpriv to the build user: the command's prefix. */
static void limits_and_user(const struct sandbox *sb, struct sandbox_cmd *cmd)
{
	struct group *kvm = (sb->flags & SB_KVM) ? getgrnam("kvm") : NULL;
	uid_t uid;
	gid_t gid;

	push(cmd, "prlimit");
	pushf(cmd, "--cpu=%llu", sb->cpu > 0 ? (unsigned long long)sb->cpu : 3600);
	pushf(cmd, "--as=%llu", (sb->flags & SB_QEMU) ? LIMIT_AS_QEMU : LIMIT_AS_BUILD);
	pushf(cmd, "--fsize=%llu", LIMIT_FSIZE);
	pushf(cmd, "--nproc=%llu", LIMIT_NPROC);
	push(cmd, "--");
	if (!(sb->flags & SB_DROP) || sandbox_build_ids(&uid, &gid))
		return;
	push(cmd, "setpriv");
	pushf(cmd, "--reuid=%llu", uid);
	pushf(cmd, "--regid=%llu", gid);
	if (kvm)
		pushf(cmd, "--groups=%llu", kvm->gr_gid);
	else
		push(cmd, "--clear-groups");
	push(cmd, "--inh-caps=-all");
	push(cmd, "--bounding-set=-all");
	push(cmd, "--no-new-privs");
	push(cmd, "--");
}

static void namespaces(struct sandbox_cmd *cmd)
{
	push(cmd, "bwrap");
	if (geteuid()) {
		/* the runner's uid becomes 65534 inside, without capabilities */
		push(cmd, "--unshare-user");
		push3(cmd, "--uid", "65534", NULL);
		push3(cmd, "--gid", "65534", NULL);
	}
	/* as root no user namespace: setpriv drops to a real unprivileged uid */
	push(cmd, "--unshare-net");
	push(cmd, "--unshare-pid");
	push(cmd, "--unshare-ipc");
	push(cmd, "--unshare-uts");
	push(cmd, "--unshare-cgroup-try");
	push(cmd, "--die-with-parent");
	push(cmd, "--new-session");
	push3(cmd, "--hostname", "bugbridge-job", NULL);
}

static void bind_job(const struct sandbox *sb, struct sandbox_cmd *cmd)
{
	const char *cwd = "/tmp";

	/* bwrap makes missing parents 0700: the build user must get through /bb */
	push3(cmd, "--perms", "0755", NULL);
	push3(cmd, "--dir", "/bb", NULL);
	if (sb->tree || sb->tree_rw) {
		push3(cmd, sb->tree_rw ? "--bind" : "--ro-bind",
		      sb->tree_rw ? sb->tree_rw : sb->tree, "/bb/src");
		cwd = sb->in_out ? "/bb/src/out" : "/bb/src";
	}
	if (sb->out)
		push3(cmd, "--bind", sb->out, "/bb/src/out");
	if (sb->ccache) {
		push3(cmd, sb->ccache_rw ? "--bind" : "--ro-bind", sb->ccache, "/bb/ccache");
		cmd->ccache_dir = xstrdup("/bb/ccache");
	}
	for (int i = 0; i < SB_MAX_BINDS && sb->binds[i].host; i++)
		push3(cmd, sb->binds[i].rw ? "--bind" : "--ro-bind", sb->binds[i].host,
		      sb->binds[i].inside ? sb->binds[i].inside : sb->binds[i].host);
	if (sb->flags & SB_KVM)
		push3(cmd, "--dev-bind", "/dev/kvm", "/dev/kvm");
	push3(cmd, "--chdir", cwd, NULL);
}

static void wrap_bwrap(const struct sandbox *sb, struct sandbox_cmd *cmd)
{
	namespaces(cmd);
	bind_system(cmd);
	push3(cmd, "--dev", "/dev", NULL);
	push3(cmd, "--proc", "/proc", NULL);
	push3(cmd, "--perms", "01777", NULL);
	push3(cmd, "--tmpfs", "/tmp", NULL);
	push3(cmd, "--setenv", "HOME", "/tmp");
	push3(cmd, "--setenv", "TMPDIR", "/tmp");
	bind_job(sb, cmd);
	limits_and_user(sb, cmd);
}

/* The real wrapping of `true`, run once: does bwrap work here, as we use it? */
static bool bwrap_works(void)
{
	static const char *const argv[] = { "true", NULL };
	struct sandbox sb = { .flags = SB_DROP };
	struct sandbox_cmd cmd = { 0 };
	struct child ch = CHILD_INIT;
	struct buf out = BUF_INIT;
	bool ok;

	buf_init(&out, 4096);
	wrap_bwrap(&sb, &cmd);
	for (int i = 0; argv[i]; i++)
		push(&cmd, argv[i]);
	ch.argv = (const char *const *)cmd.argv;
	ch.capture = &out;
	ch.clean_env = true;
	ch.timeout = 20;
	ok = child_run(&ch) == 0 && ch.exit_code == 0;
	if (!ok) {
		buf_trim(&out);
		snprintf(probe_why, sizeof(probe_why), "bwrap does not work here (%s)",
			 out.len ? out.ptr : ch.exit_code == 127 ? "not installed" : "no output");
	}
	buf_release(&out);
	sandbox_cmd_release(&cmd);
	return ok;
}

const char *sandbox_mode(void)
{
	const char *want = cfg_str("runner.sandbox");

	if (resolved_mode)
		return resolved_mode;
	if ((!strcmp(want, "auto") || !strcmp(want, "bwrap")) && bwrap_works()) {
		resolved_mode = "bwrap";
	} else if (!strcmp(want, "unshare")) {
		snprintf(probe_why, sizeof(probe_why),
			 "[runner] sandbox = unshare hides no file, user or process");
		resolved_mode = "unshare";
	} else {
		if (!strcmp(want, "none"))
			snprintf(probe_why, sizeof(probe_why), "[runner] sandbox = none");
		resolved_mode = "none";
	}
	log_info("runner: sandbox %s%s%s", resolved_mode, *probe_why ? ": " : "", probe_why);
	return resolved_mode;
}

int sandbox_check(struct buf *why)
{
	static bool warned;
	uid_t uid;
	gid_t gid;

	if (!geteuid() && sandbox_build_ids(&uid, &gid)) {
		buf_addf(why, "[runner] build_user '%s' is no unprivileged user: untrusted code"
			 " never runs as root", cfg_str("runner.build_user"));
		return -1;
	}
	if (!strcmp(sandbox_mode(), "bwrap"))
		return 0;
	if (cfg_bool("runner.unconfined")) {
		if (!warned)
			log_warn("runner: untrusted patches run UNCONFINED ([runner] unconfined): %s",
				 probe_why);
		warned = true;
		return 0;
	}
	buf_addf(why, "no sandbox for untrusted patches: %s; install bubblewrap, or set"
		 " [runner] unconfined = true to build them anyway", probe_why);
	return -1;
}

int sandbox_wrap(const struct sandbox *sb, const char *const *argv, struct sandbox_cmd *cmd)
{
	const char *mode = sandbox_mode();

	memset(cmd, 0, sizeof(*cmd));
	if (!strcmp(mode, "bwrap")) {
		wrap_bwrap(sb, cmd);
		/* bwrap --chdir sets the directory; child.h must not chdir on the host */
		cmd->cwd = NULL;
	} else {
		/* unconfined (sandbox_check allowed it): at most no network */
		if (!strcmp(mode, "unshare")) {
			push(cmd, "unshare");
			if (geteuid())
				push(cmd, "--map-root-user");
			push(cmd, "--net");
			push(cmd, "--ipc");
			push(cmd, "--uts");
			push(cmd, "--");
		}
		cmd->cwd = sb->in_out ? sb->out : sb->tree_rw ? sb->tree_rw : sb->tree;
		if (sb->ccache)
			cmd->ccache_dir = xstrdup(sb->ccache);
		if (sb->flags & SB_DROP) {
			uid_t uid;
			gid_t gid;
			if (!sandbox_build_ids(&uid, &gid)) {
				push(cmd, "setpriv");
				pushf(cmd, "--reuid=%llu", uid);
				pushf(cmd, "--regid=%llu", gid);
				push(cmd, "--clear-groups");
				push(cmd, "--no-new-privs");
				push(cmd, "--");
			}
		}
	}
	for (int i = 0; argv[i]; i++)
		push(cmd, argv[i]);
	return 0;
}

static int chown_to_build_user(const char *const *argv_tail, const char *path)
{
	struct child ch = CHILD_INIT;
	struct buf owner = BUF_INIT;
	const char *argv[12];
	uid_t uid;
	gid_t gid;
	int n = 0, ret = 0;

	if (sandbox_build_ids(&uid, &gid))
		return 0;
	buf_addf(&owner, "%u:%u", (unsigned)uid, (unsigned)gid);
	for (int i = 0; argv_tail[i]; i++)
		argv[n++] = !strcmp(argv_tail[i], "@PATH@") ? path :
			    !strcmp(argv_tail[i], "@OWNER@") ? owner.ptr : argv_tail[i];
	argv[n] = NULL;
	ch.argv = argv;
	if (child_run(&ch) || ch.exit_code)
		ret = error("cannot give '%s' to the build user", path);
	buf_release(&owner);
	return ret;
}

bool sandbox_given(const char *path)
{
	struct stat st;
	uid_t uid;
	gid_t gid;

	if (sandbox_build_ids(&uid, &gid))
		return true;
	return !stat(path, &st) && st.st_uid == uid;
}

int sandbox_give(const char *path)
{
	static const char *const argv[] = { "chown", "-R", "@OWNER@", "@PATH@", NULL };

	return chown_to_build_user(argv, path);
}

int sandbox_give_dirs(const char *path)
{
	/* only directories: a tree's files are hard links to the pristine base */
	static const char *const argv[] = { "find", "@PATH@", "-type", "d", "-exec", "chown",
					    "@OWNER@", "{}", "+", NULL };

	return chown_to_build_user(argv, path);
}
