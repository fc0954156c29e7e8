/*
 * reach: coverage_measure(), the part of coverage.c's work that runs
 * programs: `diff -U0` of each file the candidate touched against the
 * pristine base, and gcov (sandboxed: its input comes from the patched
 * build and the patched kernel) on the profiled objects: a C file's own,
 * a header's includers (kprofile.c).  Every file the candidate touched is
 * named in the result: counted, not measured (and why), or with no lines
 * to reach.  The pure parsing and counting are coverage.c's and
 * reach_json.c's.
 */
#include "run.h"
#include "stage.h"
#include "paths.h"
#include "sandbox.h"
#include "coverage.h"
#include "kplan.h"
#include "buf.h"
#include "child.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void name_in(struct buf *list, const char *file, const char *why)
{
	buf_addf(list, "%s%s (%s)", list->len ? ", " : "", file, why);
}

/* A changed source file larger than this is not measured. */
#define SOURCE_MAX (16 << 20)

/*
 * `diff -U0 base/file tree/file` into *out (empty: the same); -1 when diff
 * failed.  diff runs as us, so it never opens the job's tree, which the
 * patch and the build wrote: the tree's file is read through lib/safefile
 * (no link on the way, a regular file, capped) into a file of ours in the
 * variant's dir, and diff compares the pristine base's with that.  A file
 * the patch added has no base: diff compares it with /dev/null.
 */
static int diff_file(struct run *r, struct variant *v, const char *file, struct buf *out)
{
	struct buf a = BUF_INIT, b = BUF_INIT, text = BUF_INIT;
	const char *argv[] = { "diff", "-U0", NULL, NULL, NULL };
	struct child ch = CHILD_INIT;
	int ret = -1;

	buf_addf(&a, "%s/%s", v->tree, file);
	if (job_read(r, a.ptr, SOURCE_MAX, &text)) {
		log_warn("runner: %s: refused to read '%s': %s", v->name, a.ptr,
			 safe_strerror(errno));
		goto out;
	}
	buf_addf(&b, "%s/reach-new.c", v->dir);
	if (job_write(r, b.ptr, text.ptr, text.len))
		goto out;
	buf_reset(&a);
	buf_addf(&a, "%s/%s", r->base_tree, file);
	argv[2] = path_exists(a.ptr) ? a.ptr : "/dev/null";
	argv[3] = b.ptr;
	ch.argv = argv;
	ch.capture = out;
	ch.timeout = 60;
	if (!stage_child(r, &ch) && (ch.exit_code == 0 || ch.exit_code == 1))
		ret = 0;
	unlink(b.ptr);
out:
	buf_release(&a);
	buf_release(&b);
	buf_release(&text);
	return ret;
}

/*
 * gcov's JSON for sources of one object directory, run in the build
 * sandbox; 0 with it in *json.  Its input is the patched build's and
 * guest's: its output is kept within max_build_log (a cut JSON does not
 * parse; flood says so).
 */
static int run_gcov(struct run *r, struct variant *v, const char *objdir, char **sources,
		    int nsources, struct buf *json, struct buf *flood)
{
	struct sandbox sb = { .tree = v->tree, .out = v->out, .flags = SB_DROP };
	struct sandbox_cmd cmd;
	struct child ch = CHILD_INIT;
	const char **argv = xcalloc(nsources + 6, sizeof(*argv));
	int ret = -1, n = 0;

	argv[n++] = "gcov";
	argv[n++] = "--json-format";
	argv[n++] = "--stdout";
	argv[n++] = "--object-directory";
	argv[n++] = objdir;
	for (int i = 0; i < nsources; i++)
		argv[n++] = sources[i];
	sandbox_wrap(&sb, argv, &cmd);
	ch.argv = (const char *const *)cmd.argv;
	ch.cwd = cmd.cwd;
	ch.clean_env = true;
	ch.capture = json;
	ch.timeout = 120;
	stage_cap_output(&ch);
	if (!stage_child(r, &ch) && !stage_flooded(&ch, "gcov", flood) && !ch.exit_code)
		ret = 0;
	sandbox_cmd_release(&cmd);
	free(argv);
	return ret;
}

/*
 * Is the build's (gcno) or the guest's (gcda) file of object there?  Looked
 * at through lib/safefile: a link on its way or a FIFO is not followed but
 * refused, and why says so.
 */
static bool present(struct run *r, struct variant *v, const char *object, const char *ext,
		    struct buf *why)
{
	struct buf path = BUF_INIT;
	int fd;

	buf_addf(&path, "%s/%.*s.%s", v->out, (int)strlen(object) - 2, object, ext);
	fd = job_open(r, path.ptr, SAFE_READ);
	if (fd >= 0)
		close(fd);
	else if (errno != ENOENT)
		buf_addf(why, "refused %.*s.%s: %s", (int)strlen(object) - 2, object, ext,
			 safe_strerror(errno));
	buf_release(&path);
	return fd >= 0;
}

/* gcov over objects, one run per directory; its JSON documents into *json. */
static int gcov_objects(struct run *r, struct variant *v, char *const *objects, int n,
			struct buf *json, struct buf *why)
{
	struct buf objdir = BUF_INIT, src = BUF_INIT;
	char **srcs = xcalloc(n + 1, sizeof(*srcs));
	bool *done = xcalloc(n + 1, sizeof(*done));
	int ret = 0;

	for (int i = 0; i < n && !ret; i++) {
		const char *slash = strrchr(objects[i], '/');
		size_t dlen = (size_t)(slash - objects[i]);
		int ns = 0;

		if (done[i])
			continue;
		for (int j = i; j < n; j++) {
			const char *o = objects[j];

			if (done[j] || strncmp(o, objects[i], dlen + 1) || strchr(o + dlen + 1, '/'))
				continue;
			done[j] = true;
			/* an object gcc did not profile (assembly) or the guest never loaded */
			if (!present(r, v, o, "gcno", why) || !present(r, v, o, "gcda", why))
				continue;
			buf_reset(&src);
			buf_add(&src, o, strlen(o) - 2);
			buf_addstr(&src, ".c");
			srcs[ns++] = buf_detach(&src, NULL);
		}
		buf_reset(&objdir);
		buf_addf(&objdir, "out/%.*s", (int)dlen, objects[i]);
		if (ns)
			ret = run_gcov(r, v, objdir.ptr, srcs, ns, json, why);
		buf_addch(json, '\n');
		for (int k = 0; k < ns; k++)
			free(srcs[k]);
	}
	free(srcs);
	free(done);
	buf_release(&objdir);
	buf_release(&src);
	return ret;
}

static void measure(struct run *r, struct variant *v, const struct kfile *f, struct reach *acc)
{
	struct buf diff = BUF_INIT, json = BUF_INIT, why = BUF_INIT;
	struct changed_line *cl = NULL;
	char *own[] = { f->object };
	int ncl = 0;
	bool header = f->kind == KF_HEADER;

	if (diff_file(r, v, f->path, &diff) || !diff.len)
		goto out;
	coverage_changed_lines(diff.ptr, &cl, &ncl);
	if (!header && !present(r, v, f->object, "gcno", &why))
		name_in(&acc->not_measured, f->path, why.len ? why.ptr : "not built into this kernel");
	else if (!header && !present(r, v, f->object, "gcda", &why))
		name_in(&acc->not_measured, f->path, why.len ? why.ptr :
			"the guest returned no gcov data for it");
	else if (gcov_objects(r, v, header ? f->includers : own, header ? f->nincluders : 1,
			      &json, &why))
		name_in(&acc->not_measured, f->path, why.len ? why.ptr : "gcov could not read its data");
	else if (coverage_reach_file(f->path, json.ptr, cl, ncl, acc) < 0)
		name_in(&acc->not_measured, f->path, header ? "no object that includes it ran" :
			"gcov could not read its data");
out:
	free(cl);
	buf_release(&diff);
	buf_release(&json);
	buf_release(&why);
}

static void one_file(struct run *r, struct variant *v, const struct kfile *f, struct reach *acc)
{
	switch (f->kind) {
	case KF_SOURCE:
	case KF_HEADER:
		if (f->profiled)
			measure(r, v, f, acc);
		else
			name_in(&acc->not_measured, f->path, f->why ? f->why :
				f->kind == KF_HEADER ? "no profiled object includes it" :
				"not profiled");
		break;
	default:
		name_in(f->kind == KF_ASM ? &acc->not_measured : &acc->no_lines, f->path,
			f->why ? f->why : "no lines that run");
	}
}

int coverage_measure(struct run *r, struct variant *v)
{
	struct reach *acc = &v->reach;
	struct buf path = BUF_INIT, log = BUF_INIT;

	if (!v->gcda_files || !r->plan) {
		log_info("runner: %s: no gcov data came back from the guest; reach not measured",
			 v->name);
		return 0;
	}
	for (int i = 0; i < r->plan->nfiles; i++)
		one_file(r, v, &r->plan->files[i], acc);
	coverage_summary(acc);
	v->reach_measured = true;
	buf_addf(&log, "reach: %s\n\n%s", acc->summary.ptr, acc->log.ptr);
	buf_addf(&path, "%s/%s-coverage.log", v->logs, v->name);
	joblog_write(r, path.ptr, true, log.ptr, log.len);	/* after any refusal's line */
	log_info("runner: %s: %s", v->name, acc->summary.ptr);
	buf_release(&path);
	buf_release(&log);
	return 0;
}
