/*
 * tree: the pristine baseline and the per-job trees made from it.
 *
 *   <cache>/base/<base>/         the tarball, extracted once (under a lock)
 *   <cache>/base/<base>.version  its `make kernelversion`
 *   <cache>/seed/<key>/          the O= dir of a build of base + harness with
 *                                the config; <key> hashes all of those
 *   <cache>/jobs/<id>-a<n>/<variant>/tree   a job's tree, out/ inside it
 *
 * A job's tree is a hard-link farm of the baseline (`cp -al`: seconds, no
 * extra space), made ahead: after each job the runner makes the next one,
 * <cache>/base/<base>.spare, and a job takes it with one rename.  GNU patch writes a patched file as a new file and renames
 * it over the old name, so a patch breaks the link and never changes the
 * baseline (tests/t3010 checks this); the build only writes to out/.  The
 * base's files stay root's (read-only to the build user, who owns only the
 * job tree's directories, so that patch can rename in them), and the base,
 * the seeds and the ccache are never mounted writable in a patched job's
 * sandbox: the base and seeds not at all, the ccache read-only.
 *
 * A job's out/ starts as a copy of the seed (`cp -a`, keeping mtimes), so
 * make rebuilds only what the job's patches touch; it is copied after the
 * patches applied (a patch that does not apply costs no copy), and the
 * candidate's files are touched then, since a cold job applies its patch
 * before the seed is built.  The harness is applied
 * to every tree and so gives its files fresh mtimes; files that only the
 * harness touched are identical to the seed's, so they get the baseline's
 * old mtime back (tree_settle_harness) and are not rebuilt.
 */
#include "tree.h"
#include "run.h"
#include "stage.h"
#include "paths.h"
#include "sandbox.h"
#include "buf.h"
#include "child.h"
#include "config.h"
#include "fetch.h"
#include "log.h"
#include "wfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Run a helper (tar, cp, make kernelversion), keeping the job's lease alive. */
static int run_quiet(struct run *r, const char *const *argv, const char *cwd,
		     const char *log_path, struct buf *capture)
{
	struct child ch = CHILD_INIT;

	ch.argv = argv;
	ch.cwd = cwd;
	ch.log_path = log_path;
	ch.capture = capture;
	if (stage_child(r, &ch))
		return -1;
	if (ch.exit_code) {
		struct buf d = BUF_INIT;
		child_describe(&ch, &d);
		error("'%s' exited with %d", d.ptr, ch.exit_code);
		buf_release(&d);
		return -1;
	}
	return 0;
}

/* The one directory a tarball held (linux-source-6.12), else dir itself. */
static void top_dir(const char *dir, struct buf *out)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	buf_reset(out);
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!n++)
			buf_addf(out, "%s/%s", dir, e->d_name);
	}
	if (d)
		closedir(d);
	if (n != 1 || !path_exists(out->ptr)) {
		buf_reset(out);
		buf_addstr(out, dir);
	}
}

static int extract(struct run *r, const char *basedir, const char *name, const char *tarball)
{
	struct buf tmp = BUF_INIT, top = BUF_INIT, dest = BUF_INIT;
	/*
	 * Debian's tarball is xz in 55 blocks, which xz 5.4 decompresses on
	 * every core; tar's own `xz -d` would use one (about 2 s of a cold
	 * job's 12 s extraction here).
	 */
	const char *tar_xz[] = { "tar", "-I", "xz -T0", "-xf", tarball, "-C", NULL, NULL };
	const char *tar_any[] = { "tar", "-xf", tarball, "-C", NULL, NULL };
	size_t len = strlen(tarball);
	bool xz = len > 3 && !strcmp(tarball + len - 3, ".xz");
	const char **tar = xz ? tar_xz : tar_any;
	int ret = -1;

	buf_addf(&tmp, "%s/.extract-%d", basedir, (int)getpid());
	buf_addf(&dest, "%s/%s", basedir, name);
	remove_tree(tmp.ptr);
	if (mkdir_p(tmp.ptr, 0755))
		goto out;
	tar[xz ? 6 : 4] = tmp.ptr;
	log_info("runner: extracting %s (once)", tarball);
	if (run_quiet(r, tar, NULL, NULL, NULL)) {
		buf_addf(&r->infra, "cannot extract '%s'", tarball);
		goto out;
	}
	top_dir(tmp.ptr, &top);
	if (rename(top.ptr, dest.ptr)) {
		buf_addf(&r->infra, "cannot move the extracted tree to '%s': %s", dest.ptr,
			 strerror(errno));
		goto out;
	}
	ret = 0;
out:
	remove_tree(tmp.ptr);
	buf_release(&tmp);
	buf_release(&top);
	buf_release(&dest);
	return ret;
}

static int record_version(struct run *r, const char *tree, const char *path)
{
	const char *argv[] = { "make", "-s", "kernelversion", NULL };
	struct buf v = BUF_INIT;
	int ret = -1;

	buf_init(&v, 4096);
	if (run_quiet(r, argv, tree, NULL, &v)) {
		buf_addstr(&r->infra, "cannot read the base's kernelversion");
		goto out;
	}
	buf_trim(&v);
	/* its presence says the base was extracted whole: durable, and whole itself */
	if (write_file(path, v.ptr, v.len, WF_ATOMIC | WF_SYNC)) {
		buf_addf(&r->infra, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	buf_release(&v);
	return ret;
}

/*
 * Extract the base (a release fetched first: fetch.c) and record its
 * version; then drop the releases that no longer fit the cache.
 */
static int base_fresh(struct run *r, const char *dir, const char *tree, const char *ver)
{
	struct buf tmp = BUF_INIT, tarball = BUF_INIT;
	int ret = -1;

	buf_addf(&tmp, "%s/.fetch-%d", dir, (int)getpid());
	remove_tree(tree);
	remove_tree(tmp.ptr);
	if (fetch_source(r, tmp.ptr, &tarball) ||
	    extract(r, dir, r->job->base, tarball.ptr) || record_version(r, tree, ver))
		goto out;
	fetch_evict(r, dir);
	ret = 0;
out:
	remove_tree(tmp.ptr);
	buf_release(&tmp);
	buf_release(&tarball);
	return ret;
}

int tree_base_ensure(struct run *r)
{
	struct buf dir = BUF_INIT, tree = BUF_INIT, ver = BUF_INIT, lock = BUF_INIT;
	const char *name = r->job->base;
	int fd = -1, ret = -1;

	if (fetch_check(r))
		return -1;
	buf_addf(&dir, "%s/base", r->cache);
	buf_addf(&tree, "%s/%s", dir.ptr, name);
	buf_addf(&ver, "%s/%s.version", dir.ptr, name);
	buf_addf(&lock, "%s/.lock", dir.ptr);
	if (mkdir_p(dir.ptr, 0755))
		goto out;
	fd = open(lock.ptr, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		buf_addf(&r->infra, "cannot lock '%s'", lock.ptr);
		goto out;
	}
	if (!path_exists(ver.ptr) && base_fresh(r, dir.ptr, tree.ptr, ver.ptr))
		goto out;
	/* held for the run, so that no other runner evicts it meanwhile (fetch.c) */
	if (fetch_hold(r, dir.ptr))
		goto out;
	buf_reset(&lock);
	if (buf_read_file(&lock, ver.ptr)) {
		buf_addf(&r->infra, "cannot read '%s'", ver.ptr);
		goto out;
	}
	buf_trim(&lock);
	r->kernel_version = buf_detach(&lock, NULL);
	r->base_tree = buf_detach(&tree, NULL);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	buf_release(&dir);
	buf_release(&tree);
	buf_release(&ver);
	buf_release(&lock);
	return ret;
}

static const char *dirname_of(const char *path, struct buf *out)
{
	const char *slash = strrchr(path, '/');

	buf_reset(out);
	buf_add(out, path, slash ? (size_t)(slash - path) : 0);
	return out->ptr;
}

/*
 * A coverage variant starts from the gcov seed (the base built with
 * configs/gcov.config too: that config changes every object's objtool
 * command, so from the plain seed make would rebuild everything), else
 * from the plain one.  `exact`: only the variant's own kind of seed.
 */
static void seed_path(struct run *r, const struct variant *v, bool exact, struct buf *out)
{
	buf_reset(out);
	buf_addf(out, "%s/seed/%s", r->cache, v->coverage ? r->seed_key_gcov : r->seed_key);
	if (!exact && v->coverage && !path_exists(out->ptr)) {
		buf_reset(out);
		buf_addf(out, "%s/seed/%s", r->cache, r->seed_key);
	}
}

bool tree_has_seed(struct run *r, const struct variant *v)
{
	struct buf seed = BUF_INIT;
	bool ret;

	seed_path(r, v, true, &seed);
	ret = path_exists(seed.ptr);
	buf_release(&seed);
	return ret;
}

/*
 * The seed is the base built with this config: a variant of the base alone
 * (a baseline) boots its kernel as it is.  Only what a boot reads, the
 * kernel and the version it prints, is copied into v->out (the job's own
 * directory), so nothing of the seed is opened through the job's tree.
 */
int tree_use_seed(struct run *r, struct variant *v)
{
	static const char *const files[] = { "arch/x86/boot/bzImage",
					     "include/generated/utsversion.h" };
	struct buf seed = BUF_INIT, from = BUF_INIT, to = BUF_INIT, dir = BUF_INIT;
	const char *cp[] = { "cp", "-p", NULL, NULL, NULL };
	int ret = -1;

	seed_path(r, v, true, &seed);
	stage_begin(r, v, "build");
	stage_note(r, "nothing to build: the seed's own kernel (the base with this config)");
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		buf_reset(&from);
		buf_reset(&to);
		buf_addf(&from, "%s/%s", seed.ptr, files[i]);
		buf_addf(&to, "%s/%s", v->out, files[i]);
		cp[2] = from.ptr;
		cp[3] = to.ptr;
		if (mkdir_p(dirname_of(to.ptr, &dir), 0755) || run_quiet(r, cp, NULL, NULL, NULL)) {
			buf_addf(&r->infra, "cannot copy the seed's '%s'", from.ptr);
			goto out;
		}
	}
	v->seeded = v->seed_exact = true;
	seed_parts_save(r, v->coverage);	/* its time says when a job last used it */
	log_info("runner: %s: the seed's own kernel, %s", v->name, seed.ptr);
	ret = 0;
out:
	buf_release(&seed);
	buf_release(&from);
	buf_release(&to);
	buf_release(&dir);
	return ret;
}

int tree_seed_kernel(struct run *r, struct buf *out)
{
	const char *keys[] = { r->seed_key, r->seed_key_gcov };

	for (int i = 0; i < 2; i++) {
		buf_reset(out);
		if (keys[i])
			buf_addf(out, "%s/seed/%s/arch/x86/boot/bzImage", r->cache, keys[i]);
		if (keys[i] && path_exists(out->ptr))
			return 0;
	}
	buf_reset(out);
	return -1;
}

static void spare_path(struct run *r, struct buf *out)
{
	buf_reset(out);
	buf_addf(out, "%s.spare", r->base_tree);
}

int tree_make(struct run *r, struct variant *v)
{
	const char *cp_al[] = { "cp", "-al", r->base_tree, v->tree, NULL };
	struct buf spare = BUF_INIT;
	int taken;

	if (remove_tree(v->dir) || mkdir_p(v->dir, 0755))
		return -1;
	spare_path(r, &spare);
	taken = !rename(spare.ptr, v->tree);	/* atomic: one runner takes it */
	buf_release(&spare);
	/* a spare made under another [runner] build_user is given again */
	if (taken && !sandbox_given(v->tree) && sandbox_give_dirs(v->tree)) {
		buf_addf(&r->infra, "cannot give the directories of '%s' to the build user", v->tree);
		return -1;
	}
	if (taken)
		return 0;
	if (run_quiet(r, cp_al, NULL, NULL, NULL)) {
		buf_addf(&r->infra, "cannot make the tree '%s'", v->tree);
		return -1;
	}
	/* patch runs as the build user: it needs the directories, never the base's files */
	if (sandbox_give_dirs(v->tree)) {
		buf_addf(&r->infra, "cannot give the directories of '%s' to the build user", v->tree);
		return -1;
	}
	return 0;
}

void tree_refill_spare(struct run *r)
{
	struct buf spare = BUF_INIT, tmp = BUF_INIT;
	const char *cp_al[] = { "cp", "-al", r->base_tree, NULL, NULL };
	struct child ch = CHILD_INIT;

	spare_path(r, &spare);
	if (path_exists(spare.ptr))
		goto out;
	buf_addf(&tmp, "%s.tmp-%d", spare.ptr, (int)getpid());
	remove_tree(tmp.ptr);
	cp_al[3] = tmp.ptr;
	ch.argv = cp_al;	/* no job's lease to keep: a plain child */
	/* given like tree_make's, so that taking it is only the rename */
	if (child_run(&ch) || ch.exit_code || sandbox_give_dirs(tmp.ptr) ||
	    rename(tmp.ptr, spare.ptr))
		remove_tree(tmp.ptr);
out:
	buf_release(&spare);
	buf_release(&tmp);
}

/*
 * The patched tree may be older than the seed (a cold job applies the patch,
 * then builds the seed): its candidate's files get the time of now, so that
 * make sees them newer than the seed's objects.  The tree is the patch's
 * work: each file is reached through lib/safefile (a link on its way, or a
 * file that is no regular file, is refused: the patch's verdict), so no
 * file outside the tree ever gets its times changed.
 */
int tree_touch_candidate(struct run *r, struct variant *v)
{
	struct buf path = BUF_INIT, why = BUF_INIT;
	int ret = 0;

	for (int i = 0; i < v->ncand_files && !ret; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/%s", v->tree, v->cand_files[i]);
		if (!job_utimens(r, path.ptr, NULL) || errno == ENOENT)
			continue;
		if (errno == ELOOP || errno == ENXIO || errno == EXDEV || errno == ENOTDIR ||
		    errno == EISDIR) {
			buf_addf(&why, "refused to touch the patched %s: %s", v->cand_files[i],
				 safe_strerror(errno));
			stage_fail(v, "apply-failed", why.ptr);
		} else {
			buf_addf(&r->infra, "cannot touch '%s': %s", path.ptr, strerror(errno));
		}
		ret = -1;
	}
	buf_release(&path);
	buf_release(&why);
	return ret;
}

int tree_seed(struct run *r, struct variant *v)
{
	const char *cp_seed[] = { "cp", "-a", NULL, v->out, NULL };
	struct buf seed = BUF_INIT;
	int ret = -1;

	/*
	 * Plain paths into the tree here (rm -rf, cp -a, mkdir, chown -R: none
	 * follows a link it meets below v->out, and v->out is made anew): the
	 * only sandboxed step that has run in it is GNU patch, on diffs that
	 * patch_check() let through, which make regular files and directories
	 * only, and no process of it outlives its sandbox (bwrap's PID
	 * namespace; unconfined runs are not held to that).  The candidate's
	 * files are touched through lib/safefile all the same.
	 */
	if (remove_tree(v->out))
		goto out;
	seed_path(r, v, false, &seed);
	if (path_exists(seed.ptr)) {
		cp_seed[2] = seed.ptr;
		if (run_quiet(r, cp_seed, NULL, NULL, NULL)) {
			buf_addf(&r->infra, "cannot copy the seed build '%s'", seed.ptr);
			goto out;
		}
		log_info("runner: %s: out/ seeded from %s", v->name, seed.ptr);
		v->seeded = true;
		v->seed_exact = tree_has_seed(r, v);
		/* what it was made from, for a later runner that finds none */
		seed_parts_save(r, v->coverage && v->seed_exact);
		if (tree_touch_candidate(r, v))
			goto out;
	} else {
		seed_explain(r, &v->no_seed);
		log_info("runner: %s: no seed build to start from, so the kernel is built"
			 " in full: %s", v->name, v->no_seed.ptr);
		if (mkdir(v->out, 0755)) {
			buf_addf(&r->infra, "cannot create '%s': %s", v->out, strerror(errno));
			goto out;
		}
	}
	if (sandbox_give(v->out)) {
		buf_addf(&r->infra, "cannot give '%s' to the build user", v->out);
		goto out;
	}
	ret = 0;
out:
	buf_release(&seed);
	return ret;
}

int tree_save_seed(struct run *r, struct variant *v)
{
	struct buf seed = BUF_INIT, tmp = BUF_INIT, parent = BUF_INIT;
	const char *cp[] = { "cp", "-a", v->out, NULL, NULL };
	int ret = -1;

	seed_path(r, v, true, &seed);
	if (path_exists(seed.ptr)) {
		ret = 0;
		goto out;
	}
	buf_addf(&tmp, "%s.tmp-%d", seed.ptr, (int)getpid());
	cp[3] = tmp.ptr;
	if (mkdir_p(r->cache, 0755) || remove_tree(tmp.ptr))
		goto out;
	if (mkdir_p(dirname_of(seed.ptr, &parent), 0755))
		goto out;
	if (run_quiet(r, cp, NULL, NULL, NULL))
		goto out;
	if (rename(tmp.ptr, seed.ptr) && errno != ENOTEMPTY && errno != EEXIST) {
		error("cannot keep the seed build '%s': %s", seed.ptr, strerror(errno));
		goto out;
	}
	log_info("runner: kept %s as the seed build for later jobs", seed.ptr);
	seed_parts_save(r, v->coverage);
	ret = 0;
out:
	remove_tree(tmp.ptr);
	buf_release(&seed);
	buf_release(&tmp);
	buf_release(&parent);
	return ret;
}

static bool listed(char **list, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

int tree_settle_harness(struct run *r, struct variant *v, char **touched, int ntouched,
			char **cand_touched, int ncand)
{
	struct buf path = BUF_INIT;
	struct stat base;
	struct timespec times[2];

	/* the pristine base is ours: no sandboxed step ever wrote it */
	buf_addf(&path, "%s/Makefile", r->base_tree);
	if (stat(path.ptr, &base)) {
		error("cannot stat '%s': %s", path.ptr, strerror(errno));
		buf_release(&path);
		return -1;
	}
	times[0] = base.st_mtim;
	times[1] = base.st_mtim;
	for (int i = 0; i < ntouched; i++) {
		if (listed(cand_touched, ncand, touched[i]))
			continue;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", v->tree, touched[i]);
		/* the candidate's patch went first: a link it left is refused (lib/safefile) */
		/* the file is only rebuilt; one the harness deleted (its split) has none */
		if (job_utimens(r, path.ptr, times) && errno != ENOENT)
			log_warn("runner: cannot reset the mtime of '%s': %s", path.ptr,
				 safe_strerror(errno));
	}
	buf_release(&path);
	return 0;
}
