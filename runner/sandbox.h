/*
 * sandbox: the argv prefixes that confine what untrusted code runs (apply,
 * builds, gcov and QEMU) under bubblewrap, and the build user they run as.
 */
#ifndef BB_SANDBOX_H
#define BB_SANDBOX_H

#include <stdbool.h>
#include <sys/types.h>
#include "buf.h"

enum sandbox_flags {
	SB_DROP = 1,		/* run as the build user when we are root */
	SB_QEMU = 2,		/* QEMU's address-space limit, not a compiler's */
	SB_KVM = 4,		/* /dev/kvm inside, and the kvm group */
};
#define SB_MAX_BINDS 4
struct sandbox {
	const char *tree;	/* host path mounted read-only at /bb/src */
	const char *tree_rw;	/* or read-write */
	const char *out;	/* host path mounted read-write at /bb/src/out */
	const char *ccache;	/* host path mounted at /bb/ccache, read-only unless */
	bool ccache_rw;		/* ... this (builds of trusted trees only) */
	bool in_out;		/* start in out/ rather than the tree */
	int cpu;		/* CPU seconds per process (0: an hour) */
	struct {
		const char *host, *inside;	/* inside NULL: the same path */
		bool rw;
	} binds[SB_MAX_BINDS];
	int flags;
};
/*
 * Resolve [runner] sandbox once: "bwrap" when bwrap works as we use it,
 * else "unshare" or "none" (which confine nothing that matters).
 */
const char *sandbox_mode(void);
/*
 * 0 when untrusted code may run: bwrap works, or [runner] unconfined is set
 * (logged).  Else -1 with the reason appended to why (an infra-error).
 */
int sandbox_check(struct buf *why);
/* The build user's uid/gid when we are root; -1 when no drop applies. */
int sandbox_build_ids(uid_t *uid, gid_t *gid);
/*
 * Wrap argv for the sandbox.  cmd->argv is a NULL-terminated vector in
 * storage (free with sandbox_cmd_release); cmd->cwd the directory to start
 * in on the host (NULL under bwrap, which sets it); cmd->ccache_dir the
 * CCACHE_DIR value to use.  Run it with child.h's clean_env.
 */
struct sandbox_cmd {
	char **argv;
	int argc, alloc;
	const char *cwd;
	char *ccache_dir;
};
int sandbox_wrap(const struct sandbox *sb, const char *const *argv, struct sandbox_cmd *cmd);
void sandbox_cmd_release(struct sandbox_cmd *cmd);
/* chown -R path to the build user (no-op unless we are root and drop). */
int sandbox_give(const char *path);
/* The same for path's directories only (a job tree: its files are the base's). */
int sandbox_give_dirs(const char *path);
/* Is path the build user's already (or is there no build user)? */
bool sandbox_given(const char *path);

#endif
