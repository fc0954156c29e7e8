/*
 * sandbox: confining the commands that run code from a patch.
 *
 * A kernel build runs the tree's Makefiles, scripts and Kconfig, so a patch
 * from the tracker is code we execute.  Builds therefore run
 *   - without network (a new network namespace),
 *   - as the unprivileged [runner] build_user when the runner is root
 *     (setpriv, with no_new_privs), and
 *   - under bwrap when available: a new root holding /usr, /etc and the
 *     job's tree read-only at /bb/src, with only its O= dir (/bb/src/out)
 *     and the ccache dir (/bb/ccache) writable.
 *
 * The fixed /bb paths are also what makes builds incremental across jobs:
 * every job's kbuild sees the same source and object paths, so a seeded
 * O= dir and ccache entries match.  (Outside bwrap, O=out is a direct
 * subdirectory of the tree, so kbuild uses srctree=".." and paths stay
 * relative anyway.)
 *
 * As root, bwrap runs privileged (it must open the cache dir, which may lie
 * under a 0700 home) and setpriv drops to the build user inside it.
 */
#include "runner.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *resolved_mode;

static bool works(const char *const *argv)
{
	struct child ch = CHILD_INIT;

	ch.argv = argv;
	ch.timeout = 20;
	return child_run(&ch) == 0 && ch.exit_code == 0;
}

const char *sandbox_mode(void)
{
	static const char *const bwrap_probe[] = {
		"bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
		"--dev", "/dev", "--proc", "/proc", "true", NULL
	};
	static const char *const unshare_probe[] = { "unshare", "--net", "true", NULL };
	static const char *const unshare_user_probe[] = {
		"unshare", "--map-root-user", "--net", "true", NULL
	};
	const char *want = cfg_str("runner.sandbox");

	if (resolved_mode)
		return resolved_mode;
	if (strcmp(want, "auto")) {
		resolved_mode = want;
	} else if (works(bwrap_probe)) {
		resolved_mode = "bwrap";
	} else if (works(geteuid() ? unshare_user_probe : unshare_probe)) {
		resolved_mode = "unshare";
	} else {
		log_warn("runner: neither bwrap nor unshare works here: builds run unconfined");
		resolved_mode = "none";
	}
	log_info("runner: sandbox %s", resolved_mode);
	return resolved_mode;
}

int sandbox_build_ids(uid_t *uid, gid_t *gid)
{
	const char *user = cfg_str("runner.build_user");
	struct passwd *pw;

	if (geteuid() != 0 || !*user)
		return -1;
	pw = getpwnam(user);
	if (!pw)
		return error("runner: build user '%s' does not exist", user);
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

static void push(struct sandbox_cmd *cmd, const char *arg)
{
	if (cmd->argc + 2 > cmd->alloc) {
		cmd->alloc = cmd->alloc ? cmd->alloc * 2 : 64;
		cmd->argv = xrealloc(cmd->argv, cmd->alloc * sizeof(*cmd->argv));
	}
	cmd->argv[cmd->argc++] = xstrdup(arg);
	cmd->argv[cmd->argc] = NULL;
}

static void pushf(struct sandbox_cmd *cmd, const char *fmt, unsigned v)
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

/* /bin, /lib, ...: a symlink into /usr on merged-/usr systems, else a bind. */
static void bind_system(struct sandbox_cmd *cmd)
{
	static const char *const dirs[] = { "/bin", "/sbin", "/lib", "/lib64", "/lib32", NULL };

	push(cmd, "--ro-bind");
	push(cmd, "/usr");
	push(cmd, "/usr");
	push(cmd, "--ro-bind");
	push(cmd, "/etc");
	push(cmd, "/etc");
	for (int i = 0; dirs[i]; i++) {
		char target[256];
		ssize_t n = readlink(dirs[i], target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			push(cmd, "--symlink");
			push(cmd, target);
			push(cmd, dirs[i]);
		} else if (path_exists(dirs[i])) {
			push(cmd, "--ro-bind");
			push(cmd, dirs[i]);
			push(cmd, dirs[i]);
		}
	}
}

static void drop_privileges(const struct sandbox *sb, struct sandbox_cmd *cmd)
{
	uid_t uid;
	gid_t gid;

	if (!(sb->flags & SB_DROP) || sandbox_build_ids(&uid, &gid))
		return;
	push(cmd, "setpriv");
	pushf(cmd, "--reuid=%u", uid);
	pushf(cmd, "--regid=%u", gid);
	push(cmd, "--clear-groups");
	push(cmd, "--no-new-privs");
	push(cmd, "--");
}

static void wrap_bwrap(const struct sandbox *sb, struct sandbox_cmd *cmd)
{
	push(cmd, "bwrap");
	if (geteuid()) {
		push(cmd, "--unshare-all");
	} else {
		/* no user namespace: setpriv below must find the build user mapped */
		push(cmd, "--unshare-net");
		push(cmd, "--unshare-pid");
		push(cmd, "--unshare-ipc");
		push(cmd, "--unshare-uts");
		push(cmd, "--unshare-cgroup-try");
	}
	push(cmd, "--die-with-parent");
	push(cmd, "--new-session");
	bind_system(cmd);
	push(cmd, "--dev");
	push(cmd, "/dev");
	push(cmd, "--proc");
	push(cmd, "/proc");
	push(cmd, "--perms");
	push(cmd, "01777");
	push(cmd, "--tmpfs");
	push(cmd, "/tmp");
	push(cmd, "--setenv");
	push(cmd, "HOME");
	push(cmd, "/tmp");
	/* bwrap makes missing parents 0700: the build user must get through /bb */
	push(cmd, "--perms");
	push(cmd, "0755");
	push(cmd, "--dir");
	push(cmd, "/bb");
	if (sb->tree || sb->tree_rw) {
		push(cmd, sb->tree_rw ? "--bind" : "--ro-bind");
		push(cmd, sb->tree_rw ? sb->tree_rw : sb->tree);
		push(cmd, "/bb/src");
		cmd->cwd = sb->in_out ? "/bb/src/out" : "/bb/src";
	}
	if (sb->out) {
		push(cmd, "--bind");
		push(cmd, sb->out);
		push(cmd, "/bb/src/out");
	}
	if (sb->ccache) {
		push(cmd, "--bind");
		push(cmd, sb->ccache);
		push(cmd, "/bb/ccache");
		cmd->ccache_dir = xstrdup("/bb/ccache");
	}
	if (cmd->cwd) {
		push(cmd, "--chdir");
		push(cmd, cmd->cwd);
	}
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
	}
	drop_privileges(sb, cmd);
	for (int i = 0; argv[i]; i++)
		push(cmd, argv[i]);
	return 0;
}

int sandbox_give(const char *path)
{
	struct child ch = CHILD_INIT;
	struct buf owner = BUF_INIT;
	const char *argv[] = { "chown", "-R", NULL, path, NULL };
	uid_t uid;
	gid_t gid;
	int ret = 0;

	if (sandbox_build_ids(&uid, &gid))
		return 0;
	buf_addf(&owner, "%u:%u", (unsigned)uid, (unsigned)gid);
	argv[2] = owner.ptr;
	ch.argv = argv;
	if (child_run(&ch) || ch.exit_code)
		ret = error("cannot give '%s' to the build user", path);
	buf_release(&owner);
	return ret;
}
