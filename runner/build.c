/*
 * build: `make bzImage` of a job's tree, and the guest suite binary.
 *
 * The kernel build runs in the sandbox with ccache (its directory in the
 * cache dir, owned by the build user, writable only to builds without
 * candidate patches) in depend mode: kbuild passes -MMD, so ccache takes
 * the headers from the compiler's own dependency file instead of running
 * the preprocessor once more on every miss, which made a cold build of
 * the runner's config 47% slower than a bare make (167 s against 114 s;
 * 125 s in depend mode, measured on 2 cores).  The log is kept per variant, and read while make
 * runs for the job's progress line (progress.c).  When
 * make fails, the first compiler error lines become the build-failed
 * verdict's detail.
 *
 * The suite (kernel-patches/suite) is our own code: it is built once per
 * content hash into <cache>/suite/<hash>/ with `make -C suite O=...`.
 */
#include "build.h"
#include "jobserver.h"
#include "run.h"
#include "stage.h"
#include "paths.h"
#include "sandbox.h"
#include "apply.h"
#include "buf.h"
#include "child.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"
#include "sha256.h"
#include "hex.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void build_first_errors(const char *log, struct buf *out, int max_lines)
{
	const char *p = log;
	int n = 0;

	while (*p && n < max_lines) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		struct buf line = BUF_INIT;
		buf_add(&line, p, len);
		if (strstr(line.ptr, ": error: ") || strstr(line.ptr, ": fatal error: ") ||
		    strstr(line.ptr, "undefined reference to") ||
		    strstr(line.ptr, "Error: ") || strstr(line.ptr, "ERROR: ") ||
		    (strstr(line.ptr, "make") && strstr(line.ptr, "*** ") && !n)) {
			buf_addf(out, "%s\n", line.ptr);
			n++;
		}
		buf_release(&line);
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!n) {
		/* No recognisable error: the last lines say what happened. */
		size_t len = strlen(log), start = len > 1500 ? len - 1500 : 0;
		buf_addstr(out, log + start);
	}
}

/* The ccache dir; the build user's when it is to be written (rw). */
static int ccache_dir(struct run *r, bool rw, struct buf *out)
{
	buf_addf(out, "%s/ccache", r->cache);
	if (mkdir_p(out->ptr, 0755))
		return -1;
	return rw ? sandbox_give(out->ptr) : 0;
}

/* make failed: the tree's fault, with the first errors in why, or a full disk's. */
static enum fault make_failed(struct run *r, const char *log_path, struct buf *why)
{
	struct buf logtext = BUF_INIT;
	enum fault ret = FAULT_PATCH;

	/* our own log of the build's output (capped as it was written): never a link */
	buf_init(&logtext, 64 << 20);
	safe_read_path(log_path, 64 << 20, &logtext);
	/* a full disk under the tree is the infrastructure's fault, not the patch's */
	if (strstr(logtext.ptr, "No space left on device")) {
		buf_addf(&r->infra, "the build ran out of disk space (see %s)", log_path);
		ret = FAULT_INFRA;
	} else {
		build_first_errors(logtext.ptr, why, 12);
	}
	buf_release(&logtext);
	return ret;
}

/*
 * Depend mode hashes a source and the headers the compiler names, never a
 * file pulled in with .incbin: piggy.S (the compressed vmlinux) reads the
 * same for two kernels of one size, and ccache served the other kernel's
 * piggy.o, so a patched build could boot its seed's kernel (seen in t3500:
 * the unfixed sr.c booted 3 times in 4).  ccache never caches a compile
 * with -save-temps, so the files that .incbin a build product always
 * compile.  kernel-patches/tools/build-kernel.sh passes the same.
 */
#define INCBIN_UNCACHED "AFLAGS_piggy.o=-save-temps=obj", \
	"AFLAGS_rmpiggy.o=-save-temps=obj", "AFLAGS_initramfs_data.o=-save-temps=obj"

int build_uts_version(const struct variant *v, struct buf *out)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	const char *start, *end;
	int ret = -1;

	/* the build's output: through lib/safefile (a line, not a FIFO or a link) */
	buf_addf(&path, "%s/include/generated/utsversion.h", v->out);
	if (job_read(v->run, path.ptr, 64 << 10, &text)) {
		if (errno != ENOENT)
			log_warn("runner: %s: refused to read '%s': %s", v->name, path.ptr,
				 safe_strerror(errno));
		goto out;
	}
	start = strstr(text.ptr, "UTS_VERSION \"");
	if (!start)
		goto out;
	start += strlen("UTS_VERSION \"");
	end = strchr(start, '"');
	if (!end || end == start)
		goto out;
	buf_add(out, start, end - start);
	ret = 0;
out:
	buf_release(&path);
	buf_release(&text);
	return ret;
}

bool banner_is_built(const char *console, const char *uts_version, struct buf *booted)
{
	const char *line = strstr(console, "Linux version "), *end;
	size_t len, want = strlen(uts_version);

	if (!line)
		return true;
	end = line + strcspn(line, "\r\n");
	len = end - line;
	if (len >= want && !memcmp(end - want, uts_version, want))
		return true;
	/* the version is what follows the compiler's closing parenthesis */
	for (const char *p = end; p > line; p--)
		if (p[-1] == ')') {
			line = p;
			break;
		}
	while (line < end && *line == ' ')
		line++;
	buf_add(booted, line, end - line);
	return false;
}

/*
 * make's parallelism: a jobserver of its own that follows the other builds
 * on this cache (jobserver.c), said as the build log's first line; else
 * (no lock dir) -j of every CPU.  argv[1] is "-jN" only then: a -j on
 * make's command line would make it ignore the jobserver.
 */
static void make_jobs(struct run *r, struct variant *v, struct jobserver *js, const char **argv,
		      struct buf *jobs, struct buf *makeflags, const char *log_path)
{
	struct buf line = BUF_INIT;

	if (!jobserver_open(r, js)) {
		buf_addstr(makeflags, "MAKEFLAGS=");
		jobserver_makeflags(js, makeflags);
		argv[1] = "--no-print-directory";	/* a harmless filler: no -j of its own */
		buf_addf(&line, "bugbridge: make runs up to %d jobs at a time: this build's share"
			 " of %ld CPUs (%d build%s on this cache), following the builds that"
			 " start and end (a jobserver of its own)\n", js->share, js->ncpu, js->builds,
			 js->builds > 1 ? "s" : "");
		buf_addf(jobs, "%d of %ld CPUs, jobserver", js->share, js->ncpu);
	} else {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		buf_addf(jobs, "-j%ld", ncpu > 0 ? ncpu : 1);
		argv[1] = jobs->ptr;
		buf_addf(&line, "bugbridge: make %s: every CPU (no count of the other builds)\n",
			 jobs->ptr);
	}
	joblog_write(r, log_path, true, line.ptr, line.len);
	log_info("runner: %s: %.*s", v->name, (int)line.len - 1, line.ptr);
	buf_release(&line);
}

/* make ended (rc: child_run's): whose fault if it did not build. */
static enum fault make_ended(struct run *r, struct variant *v, const struct child *ch, int rc,
			     const char *log_path, struct buf *why)
{
	if (joblog_child(r, ch))
		return FAULT_INFRA;
	/* a flood is the tree's verdict, whatever make said */
	if (stage_flooded(ch, "the build", why))
		return FAULT_PATCH;
	if (rc) {
		if (ch->timed_out && v->npatches) {
			buf_addf(why, "the build took longer than %d s", ch->timeout);
			return FAULT_PATCH;
		} else if (ch->timed_out) {
			/* the base builds: a slow machine, not a broken tree */
			buf_addf(&r->infra, "the build of the unpatched base took longer than %d s",
				 ch->timeout);
		} else if (!ch->cancelled) {
			buf_addstr(&r->infra, "could not run make");
		}
		return FAULT_INFRA;
	}
	if (ch->exit_code)
		return make_failed(r, log_path, why);
	return FAULT_NONE;
}

enum fault build_kernel(struct run *r, struct variant *v, struct buf *why)
{
	struct buf log_path = BUF_INIT, jobs = BUF_INIT, cc_dir = BUF_INIT, env_cc = BUF_INIT;
	struct buf makeflags = BUF_INIT;
	struct sandbox sb = { .tree = v->tree, .out = v->out, .flags = SB_DROP };
	struct sandbox_cmd cmd = { 0 };
	struct child ch = CHILD_INIT;
	struct build_progress progress;
	struct jobserver js = JOBSERVER_INIT;
	const char *argv[] = { "make", NULL, "O=out", "ARCH=x86_64", "CC=ccache gcc",
			       "KBUILD_BUILD_TIMESTAMP=bugbridge", "KBUILD_BUILD_USER=bugbridge",
			       "KBUILD_BUILD_HOST=runner", INCBIN_UNCACHED, "bzImage", NULL };
	const char *env[] = { NULL, "CCACHE_NOHASHDIR=1", "CCACHE_COMPILERCHECK=content",
			      "CCACHE_TEMPDIR=/tmp", "CCACHE_DEPEND=1", NULL, NULL, NULL };
	enum fault ret = FAULT_INFRA;
	int rc, nenv = 5;

	buf_addf(&log_path, "%s/%s-build.log", v->logs, v->name);
	/*
	 * Only builds of trusted trees (the base and harness: seeds, baselines)
	 * fill the ccache; a patched build reads it and cannot plant objects.
	 */
	sb.ccache_rw = v->npatches == 0;
	if (ccache_dir(r, sb.ccache_rw, &cc_dir)) {
		buf_addstr(&r->infra, "cannot prepare the ccache dir");
		goto out;
	}
	sb.ccache = cc_dir.ptr;
	if (!sb.ccache_rw)
		env[nenv++] = "CCACHE_READONLY=1";
	make_jobs(r, v, &js, argv, &jobs, &makeflags, log_path.ptr);
	if (makeflags.len)
		env[nenv++] = makeflags.ptr;
	sb.cpu = cfg_int("runner.build_timeout");
	sandbox_wrap(&sb, argv, &cmd);
	buf_addf(&env_cc, "CCACHE_DIR=%s", cmd.ccache_dir);
	env[0] = env_cc.ptr;
	ch.argv = (const char *const *)cmd.argv;
	ch.cwd = cmd.cwd;
	ch.env = env;
	ch.clean_env = true;
	ch.log_path = log_path.ptr;
	ch.timeout = cfg_int("runner.build_timeout");
	progress_start(r, &progress, v, log_path.ptr);
	r->jobserver = js.rd >= 0 ? &js : NULL;
	rc = stage_child(r, &ch);
	r->jobserver = NULL;
	jobserver_close(&js);
	progress_stop(r, &progress);
	v->build_objects = progress.done;
	ret = make_ended(r, v, &ch, rc, log_path.ptr, why);
	if (ret == FAULT_NONE) {
		log_info("runner: %s: built in %.1f s (%s)", v->name, ch.seconds, jobs.ptr);
		v->build_seconds = ch.seconds;
	}
out:
	jobserver_close(&js);
	sandbox_cmd_release(&cmd);
	buf_release(&log_path);
	buf_release(&jobs);
	buf_release(&cc_dir);
	buf_release(&env_cc);
	buf_release(&makeflags);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sha256 over the suite's files (sorted names and contents). */
static void suite_hash(const char *dir, char hex[65])
{
	struct sha256 ctx;
	unsigned char d[SHA256_LEN];
	DIR *dp = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	int n = 0;

	sha256_init(&ctx);
	while (dp && (de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	if (dp)
		closedir(dp);
	if (n) /* qsort's base must not be NULL */
		qsort(names, n, sizeof(*names), cmp_str);
	for (int i = 0; i < n; i++) {
		struct buf p = BUF_INIT;
		buf_addf(&p, "%s/%s", dir, names[i]);
		hash_file(&ctx, names[i], p.ptr);
		buf_release(&p);
	}
	strv_free(names, n);
	sha256_final(&ctx, d);
	hex_encode(hex, d, SHA256_LEN);
}

void build_compiler_id(struct buf *out)
{
	const char *argv[] = { "gcc", "--version", NULL };
	struct child ch = CHILD_INIT;
	struct buf version = BUF_INIT;

	ch.argv = argv;
	ch.capture = &version;
	ch.clean_env = true;
	ch.timeout = 30;
	buf_reset(out);
	if (!child_run(&ch) && !ch.exit_code && version.len)
		buf_add(out, version.ptr, strcspn(version.ptr, "\n"));
	else
		buf_addstr(out, "(unknown)");
	buf_release(&version);
}

int build_suite(struct run *r)
{
	struct buf dir = BUF_INIT, out = BUF_INIT, tmp = BUF_INIT, bin = BUF_INIT, arg = BUF_INIT;
	struct buf log_path = BUF_INIT;
	const char *argv[] = { "make", "-C", NULL, NULL, NULL };
	struct child ch = CHILD_INIT;
	char hex[65];
	int rc, ret = -1;

	buf_addf(&dir, "%s/suite", r->patches_dir);
	suite_hash(dir.ptr, hex);
	buf_addf(&out, "%s/suite/%.16s", r->cache, hex);
	buf_addf(&bin, "%s/bbsuite", out.ptr);
	if (path_exists(bin.ptr)) {
		r->suite_bin = buf_detach(&bin, NULL);
		ret = 0;
		goto out;
	}
	buf_addf(&tmp, "%s.tmp-%d", out.ptr, (int)getpid());
	if (mkdir_p(tmp.ptr, 0755))
		goto out;
	buf_addf(&arg, "O=%s", tmp.ptr);
	buf_addf(&log_path, "%s/suite-build.log", r->logs);
	argv[2] = dir.ptr;
	argv[3] = arg.ptr;
	ch.argv = argv;
	ch.log_path = log_path.ptr;
	ch.timeout = 600;
	rc = stage_child(r, &ch);
	if (joblog_child(r, &ch))
		goto out;
	if (rc || ch.exit_code) {
		buf_addf(&r->infra, "cannot build the guest suite (see %s)", log_path.ptr);
		goto out;
	}
	if (rename(tmp.ptr, out.ptr) && !path_exists(bin.ptr)) {
		buf_addf(&r->infra, "cannot keep the suite build '%s': %s", out.ptr,
			 strerror(errno));
		goto out;
	}
	if (!path_exists(bin.ptr)) {
		buf_addf(&r->infra, "the suite build made no '%s'", bin.ptr);
		goto out;
	}
	r->suite_bin = buf_detach(&bin, NULL);
	ret = 0;
out:
	remove_tree(tmp.ptr);
	buf_release(&dir);
	buf_release(&out);
	buf_release(&tmp);
	buf_release(&bin);
	buf_release(&arg);
	buf_release(&log_path);
	return ret;
}
