/*
 * reach: coverage_measure(), the part of coverage.c's work that runs
 * programs: `diff -U0` of each file the candidate touched against the
 * pristine base, and gcov (sandboxed: its input comes from the patched
 * build and the patched kernel) on the C files of drivers/scsi.  The pure
 * parsing and counting are coverage.c's.
 */
#include "run.h"
#include "stage.h"
#include "paths.h"
#include "sandbox.h"
#include "coverage.h"
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

/* drivers/scsi/NAME.c, not in a subdirectory: what the harness profiles. */
static bool profiled(const char *file)
{
	size_t n = strlen(file), d = strlen("drivers/scsi/");

	return n > d + 2 && !strncmp(file, "drivers/scsi/", d) && !strchr(file + d, '/') &&
	       !strcmp(file + n - 2, ".c");
}

static bool is_code(const char *file)
{
	size_t n = strlen(file);

	return n > 2 && (!strcmp(file + n - 2, ".c") || !strcmp(file + n - 2, ".h") ||
			 !strcmp(file + n - 2, ".S"));
}

static void not_measured(struct reach *acc, const char *file, const char *why)
{
	buf_addf(&acc->not_measured, "%s%s (%s)", acc->not_measured.len ? ", " : "", file, why);
}

/* A changed source file larger than this is not measured. */
#define SOURCE_MAX (16 << 20)

/*
 * `diff -U0 base/file tree/file` into *out (empty: the same); -1 when diff
 * failed.  diff runs as us, so it never opens the job's tree, which the
 * patch and the build wrote: the tree's file is read through lib/safefile
 * (no link on the way, a regular file, capped) into a file of ours in the
 * variant's dir, and diff compares the pristine base's with that.
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
	argv[2] = a.ptr;
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
 * gcov's JSON for file, run in the build sandbox; 0 with it in *json.  Its
 * input is the patched build's and guest's: its output is kept within
 * max_build_log (a cut JSON does not parse; flood says so).
 */
static int run_gcov(struct run *r, struct variant *v, const char *file, struct buf *json,
		    struct buf *flood)
{
	struct sandbox sb = { .tree = v->tree, .out = v->out, .flags = SB_DROP };
	struct sandbox_cmd cmd;
	struct child ch = CHILD_INIT;
	const char *argv[] = { "gcov", "--json-format", "--stdout", "--object-directory",
			       "out/drivers/scsi", file, NULL };
	int ret = -1;

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
	return ret;
}

/*
 * Is the build's (gcno) or the guest's (gcda) file there?  Looked at through
 * lib/safefile: a link on its way or a FIFO is not followed but refused,
 * and why says so.
 */
static bool present(struct run *r, struct variant *v, const char *path, struct buf *why)
{
	int fd = job_open(r, path, SAFE_READ);
	const char *rel = safe_rel(v->tree, path);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	if (errno != ENOENT)
		buf_addf(why, "refused %s: %s", rel ? rel : path, safe_strerror(errno));
	return false;
}

static void measure_file(struct run *r, struct variant *v, const char *file, struct reach *acc)
{
	struct buf diff = BUF_INIT, json = BUF_INIT, gcno = BUF_INIT, gcda = BUF_INIT;
	struct buf flood = BUF_INIT;	/* or a refusal: why it is not measured */
	struct changed_line *cl = NULL;
	const char *base = strrchr(file, '/') + 1;
	int ncl = 0;

	if (diff_file(r, v, file, &diff) || !diff.len)
		goto out;
	buf_addf(&gcno, "%s/drivers/scsi/%.*s.gcno", v->out, (int)strlen(base) - 2, base);
	buf_addf(&gcda, "%s/drivers/scsi/%.*s.gcda", v->out, (int)strlen(base) - 2, base);
	coverage_changed_lines(diff.ptr, &cl, &ncl);
	if (!present(r, v, gcno.ptr, &flood)) {
		not_measured(acc, file, flood.len ? flood.ptr : "not built into this kernel");
	} else if (!present(r, v, gcda.ptr, &flood)) {
		not_measured(acc, file, flood.len ? flood.ptr :
			     "the guest returned no gcov data for it");
	} else {
		if (run_gcov(r, v, file, &json, &flood))
			not_measured(acc, file, flood.len ? flood.ptr : "gcov could not read its data");
		else if (coverage_reach_file(file, json.ptr, cl, ncl, acc) < 0)
			not_measured(acc, file, "gcov could not read its data");
	}
out:
	free(cl);
	buf_release(&diff);
	buf_release(&json);
	buf_release(&gcno);
	buf_release(&gcda);
	buf_release(&flood);
}

int coverage_measure(struct run *r, struct variant *v)
{
	struct reach *acc = &v->reach;
	struct buf path = BUF_INIT, log = BUF_INIT;

	if (!v->gcda_files) {
		log_info("runner: %s: no gcov data came back from the guest; reach not measured",
			 v->name);
		return 0;
	}
	for (int i = 0; i < v->ncand_files; i++) {
		const char *f = v->cand_files[i];
		if (profiled(f))
			measure_file(r, v, f, acc);
		else if (is_code(f))
			not_measured(acc, f, strncmp(f, "drivers/scsi/", 13) ?
				     "no gcov outside drivers/scsi" : "not profiled");
	}
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
