/*
 * runner_check: what `bugbridge config check` asks of this host for the
 * runner (runner.h), and what the runner refuses to start without.
 *
 * The kernel-patches directory and what the configuration takes from it,
 * each kept series' source tarball, a cache dir (and log dir) a file can be
 * written in, the sandbox (the real bwrap probe jobs use, sandbox.c), and
 * with [runner] backend = lava the lab (lava_check.c).  Each is a line.
 */
#include "runner.h"
#include "paths.h"
#include "sandbox.h"
#include "buf.h"
#include "bases.h"
#include "cachedir.h"
#include "check.h"
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static void check_patches(struct check *c)
{
	struct buf dir = BUF_INIT, path = BUF_INIT;
	const char *variant = cfg_str("runner.config_variant");

	runner_patches_path(&dir);
	buf_addf(&path, "%s/configs/%s.config", dir.ptr, variant);
	if (!is_dir(dir.ptr)) {
		check_fail(c, "patches_dir", "'%s' does not exist ([runner] patches_dir): every"
			   " job would end in infra-error", dir.ptr);
	} else if (access(path.ptr, R_OK)) {
		check_fail(c, "patches_dir", "'%s' has no configs/%s.config ([runner]"
			   " config_variant)", dir.ptr, variant);
	} else {
		buf_reset(&path);
		buf_addf(&path, "%s/suite/scenarios", dir.ptr);
		if (access(path.ptr, R_OK))
			check_fail(c, "patches_dir", "'%s' has no suite/scenarios", dir.ptr);
		else
			check_ok(c, "patches_dir", "%s", dir.ptr);
	}
	buf_release(&dir);
	buf_release(&path);
}

static void check_tarball(struct check *c, const char *series)
{
	struct buf what = BUF_INIT, path = BUF_INIT;
	struct stat st;

	buf_addf(&what, "kernel source %s", series);
	base_tarball(series, &path);
	if (stat(path.ptr, &st) || access(path.ptr, R_OK))
		check_fail(c, what.ptr, "'%s': %s (install linux-source-%s, or take %s out of"
			   " [runner] bases)", path.ptr, strerror(errno), series, series);
	else if (!S_ISREG(st.st_mode))
		check_fail(c, what.ptr, "'%s' is not a file", path.ptr);
	else
		check_ok(c, what.ptr, "%s (%lld MiB)", path.ptr, (long long)(st.st_size >> 20));
	buf_release(&what);
	buf_release(&path);
}

/* Every series of [runner] bases (a tarball named outright: the first only). */
static void check_sources(struct check *c)
{
	bool pattern = strstr(cfg_str("runner.kernel_source"), "{series}") != NULL;
	struct buf name = BUF_INIT;
	int n = 0, checked = 0;
	char **list = config_split_list(cfg_str("runner.bases"), &n);

	for (int i = 0; i < n && (pattern || !checked); i++) {
		struct base b;

		buf_reset(&name);
		if (strncmp(list[i], BASE_PKG, strlen(BASE_PKG)))
			buf_addstr(&name, BASE_PKG);
		buf_addstr(&name, list[i]);
		if (base_parse(name.ptr, &b) || base_is_release(&b)) {
			check_fail(c, "kernel source", "[runner] bases: '%s' is not a kernel series"
				   " (6.1, 6.12)", list[i]);
			continue;
		}
		check_tarball(c, b.series);
		checked++;
	}
	if (!n)
		check_fail(c, "kernel source", "[runner] bases names no kernel series");
	config_list_free(list);
	buf_release(&name);
}

/* A file can be made in dir (created if missing, as the runner does). */
static int writable(const char *dir, struct buf *why)
{
	struct buf probe = BUF_INIT;
	int fd, ret = -1;

	if (mkdir_p(dir, 0755)) {
		buf_addf(why, "cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	buf_addf(&probe, "%s/.bugbridge-check-XXXXXX", dir);
	fd = mkstemp(probe.ptr);
	if (fd < 0) {
		buf_addf(why, "'%s' is not writable: %s", dir, strerror(errno));
		goto out;
	}
	close(fd);
	unlink(probe.ptr);
	ret = 0;
out:
	buf_release(&probe);
	return ret;
}

static void check_dir(struct check *c, const char *what, const char *dir)
{
	struct buf why = BUF_INIT;
	struct statvfs vfs;

	if (writable(dir, &why))
		check_fail(c, what, "%s", why.ptr);
	else if (!statvfs(dir, &vfs))
		check_ok(c, what, "%s is writable (%.1f GiB free)", dir,
			 (double)vfs.f_bavail * vfs.f_frsize / (1 << 30));
	else
		check_ok(c, what, "%s is writable", dir);
	buf_release(&why);
}

static void check_sandbox(struct check *c)
{
	struct buf why = BUF_INIT;
	const char *mode = sandbox_mode();

	if (sandbox_check(&why))
		check_fail(c, "sandbox", "%s", why.ptr);
	else if (!strcmp(mode, "bwrap"))
		check_ok(c, "sandbox", "bwrap works%s%s", geteuid() ? "" : "; builds run as ",
			 geteuid() ? "" : cfg_str("runner.build_user"));
	else
		check_warn(c, "sandbox", "%s: untrusted patches run unconfined ([runner]"
			   " unconfined = true)", mode);
	buf_release(&why);
}

void runner_check(struct check *c)
{
	struct buf dir = BUF_INIT;

	check_patches(c);
	check_sources(c);
	if (cache_dir(&dir))
		check_fail(c, "cache_dir", "none: no [runner] cache_dir, and no HOME");
	else
		check_dir(c, "cache_dir", dir.ptr);
	if (*cfg_str("runner.log_dir"))
		check_dir(c, "log_dir", cfg_str("runner.log_dir"));
	check_sandbox(c);
	if (strcmp(cfg_str("runner.backend"), "lava"))
		check_skip(c, "lava", "[runner] backend = %s", cfg_str("runner.backend"));
	else
		lava_check(c);
	buf_release(&dir);
}

int runner_workable(bool patches, struct buf *why)
{
	struct buf dir = BUF_INIT;
	int ret = 0;

	if (cache_dir(&dir)) {
		buf_addstr(why, "no cache dir: no [runner] cache_dir, and no HOME");
		ret = -1;
	} else if (writable(dir.ptr, why)) {
		ret = -1;
	}
	runner_patches_path(&dir);
	if (patches && !is_dir(dir.ptr)) {
		buf_addf(why, "%sthe kernel-patches directory '%s' does not exist ([runner]"
			 " patches_dir): every job would end in infra-error", ret ? "\n" : "",
			 dir.ptr);
		ret = -1;
	}
	buf_release(&dir);
	return ret;
}
