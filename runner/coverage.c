/*
 * coverage: did the run execute the lines the patch changed?  (issue 15)
 *
 * With [runner] coverage on, the patched variant of a job with patches is
 * configured with configs/gcov.config on top of the others; the harness
 * makes drivers/scsi profile itself under CONFIG_GCOV_KERNEL, and
 * kprofile.c every other object the candidate touches (and the objects
 * that include a header it touches).  After the suite, the guest prints
 * every .gcda file of the kernel on the console (suite/bbgcov.c: "#bbgcov
 * file PATH LEN", "#g BASE64"..., "#bbgcov end"); coverage_collect()
 * keeps drivers/scsi's and those the plan profiled, and writes them into
 * the build directory beside the compiler's .gcno files.
 * coverage_measure() (reach.c) then takes, for each file the candidate
 * touched, the lines it changed (`diff -U0` of the pristine base against
 * the job's tree, so a series counts as a whole), and asks gcov (in the
 * build sandbox: its input came from the patched kernel) which of them are
 * executable and which ran; a header's lines are added up over the
 * objects that include it.
 *
 * A changed line gcov has no record of (a comment, a brace, a declaration)
 * is not counted, but a file with no such line is named; a pure deletion
 * counts as the next executable line after it.  Every file is named: with
 * its count, as not measured (and why), or as having no lines to reach (a
 * Kconfig, documentation).  The result is one line for the verdict
 * ("reached 2 of 2 changed lines (sr.c 1 of 1, virtio_scsi.c 1 of 1)", or
 * which function's change never ran) and a log, <variant>-coverage.log,
 * with every counted line and its count.
 *
 * Everything that can go wrong here leaves the reach unmeasured: it never
 * turns a job into an infra-error.
 */
#include "coverage.h"
#include "gcda.h"
#include "run.h"
#include "kplan.h"
#include "apply.h"
#include "stage.h"
#include "paths.h"
#include "base64.h"
#include "buf.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GCOV_DIR "drivers/scsi/"

/* ---- the console's blocks (pure) ---- */

/* drivers/scsi/NAME.gcda, NAME of [A-Za-z0-9_-] only: never a path elsewhere. */
static bool gcda_name_ok(const char *p)
{
	size_t n = strlen(p);

	if (strncmp(p, GCOV_DIR, strlen(GCOV_DIR)) || n < strlen(GCOV_DIR) + 6 ||
	    strcmp(p + n - 5, ".gcda"))
		return false;
	for (const char *c = p + strlen(GCOV_DIR); c < p + n - 5; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
			return false;
	return true;
}

/* Does path end in "/" want (or is it want)? */
static bool ends_in(const char *path, const char *want)
{
	size_t n = strlen(path), w = strlen(want);

	return n >= w && !strcmp(path + n - w, want) && (n == w || path[n - w - 1] == '/');
}

/*
 * Where the guest's file goes below the build directory: the guest names it
 * by its path in the build (the build directory's own path first, which the
 * guest does not know), so only the tail counts, and only a tail that is
 * drivers/scsi/NAME.gcda or one of the files the plan profiled.  NULL:
 * refused.
 */
static char *gcda_rel(const char *path, char *const *wanted, int nwanted)
{
	for (int i = 0; i < nwanted; i++)
		if (ends_in(path, wanted[i]))
			return xstrdup(wanted[i]);
	for (const char *p = path; (p = strstr(p, GCOV_DIR)); p++)
		if ((p == path || p[-1] == '/') && gcda_name_ok(p))
			return xstrdup(p);
	return NULL;
}

void coverage_blobs_free(struct gcda_blob *b, int n)
{
	for (int i = 0; i < n; i++) {
		free(b[i].path);
		free(b[i].data);
	}
	free(b);
}

int coverage_blobs(const char *text, size_t len, char *const *wanted, int nwanted,
		   struct gcda_blob **out, int *n)
{
	const char *p = text, *end = text + len;
	struct buf data = BUF_INIT;
	char path[512], *rel = NULL;
	size_t want = 0;
	bool in = false, bad = false;

	*out = NULL;
	*n = 0;
	buf_init(&data, 64 << 20);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		while (l && p[l - 1] == '\r')
			l--;
		if (l > 13 && !strncmp(p, "#bbgcov file ", 13)) {
			char line[560];
			snprintf(line, sizeof(line), "%.*s", (int)(l < 559 ? l : 559), p);
			buf_reset(&data);
			free(rel);
			rel = NULL;
			if (sscanf(line, "#bbgcov file %511s %zu", path, &want) == 2)
				rel = gcda_rel(path, wanted, nwanted);
			in = rel != NULL;
			bad = false;
		} else if (in && l >= 3 && !strncmp(p, "#g ", 3)) {
			bad |= base64_decode(&data, p + 3, l - 3) != 0;
		} else if (in && l == 11 && !strncmp(p, "#bbgcov end", 11)) {
			if (!bad && !data.overflow && data.len == want) {
				*out = xreallocarray(*out, *n + 1, sizeof(**out));
				(*out)[*n].path = rel;
				rel = NULL;
				(*out)[*n].len = data.len;
				(*out)[*n].data = (unsigned char *)buf_detach(&data, NULL);
				(*n)++;
				buf_init(&data, 64 << 20);
			}
			in = false;
		}
		p = nl ? nl + 1 : end;
	}
	free(rel);
	buf_release(&data);
	return *n;
}

/*
 * The guest's files go where the build put drivers/scsi, which the build
 * (untrusted) made: through lib/safefile, so a symlink anywhere on the way
 * (out/drivers/scsi replaced after vmlinux linked) is refused, and said so
 * in the coverage log, never followed.
 */
static bool write_gcda(struct run *r, struct variant *v, const struct gcda_blob *b)
{
	struct buf rel = BUF_INIT, line = BUF_INIT, log = BUF_INIT, had = BUF_INIT;
	bool ok;

	buf_addf(&rel, "%s/%s", v->out, b->path);
	/* another shard's counters of the same boot are there: the two added up (gcda.c) */
	buf_init(&had, 64 << 20);
	if (v->gcda_files && !job_read(r, rel.ptr, 64 << 20, &had) && had.len == b->len &&
	    !gcda_merge(b->data, (const unsigned char *)had.ptr, b->len))
		v->gcda_added++;
	buf_release(&had);
	ok = !job_write(r, rel.ptr, b->data, b->len);
	if (!ok) {
		buf_addf(&line, "bugbridge: refused to write the guest's %s to '%s': %s\n",
			 b->path, rel.ptr, safe_strerror(errno));
		log_warn("runner: %s: %.*s", v->name, (int)line.len - 1, line.ptr);
		buf_addf(&log, "%s/%s-coverage.log", v->logs, v->name);
		joblog_write(r, log.ptr, true, line.ptr, line.len);
	}
	buf_release(&rel);
	buf_release(&line);
	buf_release(&log);
	return ok;
}

int coverage_collect(struct run *r, struct variant *v, const struct buf *console)
{
	struct gcda_blob *b;
	char **wanted;
	int n, nwanted, written = 0;

	kplan_gcda_wanted(r, &wanted, &nwanted);
	coverage_blobs(console->ptr, console->len, wanted, nwanted, &b, &n);
	for (int i = 0; i < n; i++)
		written += write_gcda(r, v, &b[i]);
	coverage_blobs_free(b, n);
	strv_free(wanted, nwanted);
	v->gcda_files += written;
	return written;
}

/* ---- changed lines (pure) ---- */

int coverage_changed_lines(const char *diff, struct changed_line **out, int *n)
{
	const char *p = diff;

	*out = NULL;
	*n = 0;
	while (p && *p) {
		long c, d = 1;
		const char *plus;

		if (!strncmp(p, "@@ -", 4) && (plus = strstr(p, " +")) && plus < strchr(p, '\n')) {
			char *e;
			c = strtol(plus + 2, &e, 10);
			if (*e == ',')
				d = strtol(e + 1, NULL, 10);
			if (d == 0) {		/* a deletion after line c */
				*out = xreallocarray(*out, *n + 1, sizeof(**out));
				(*out)[(*n)++] = (struct changed_line){ (int)c + 1, true };
			}
			for (long i = 0; i < d && i < 100000; i++) {
				*out = xreallocarray(*out, *n + 1, sizeof(**out));
				(*out)[(*n)++] = (struct changed_line){ (int)(c + i), false };
			}
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return *n;
}

void reach_init(struct reach *acc)
{
	memset(acc, 0, sizeof(*acc));
	buf_init(&acc->unreached_funcs, 0);
	buf_init(&acc->not_measured, 0);
	buf_init(&acc->no_lines, 0);
	buf_init(&acc->files, 0);
	buf_init(&acc->log, 0);
	buf_init(&acc->summary, 0);
}

void reach_release(struct reach *acc)
{
	buf_release(&acc->unreached_funcs);
	buf_release(&acc->not_measured);
	buf_release(&acc->no_lines);
	buf_release(&acc->files);
	buf_release(&acc->log);
	buf_release(&acc->summary);
}

void coverage_summary(struct reach *acc)
{
	struct buf *s = &acc->summary;

	buf_reset(s);
	if (!acc->changed && acc->nfiles) {
		buf_addf(s, "no changed line is one gcov counts (%s)", acc->files.ptr);
	} else if (!acc->changed) {
		buf_addstr(s, "no changed line was measured");
	} else if (!acc->reached) {
		buf_addf(s, "the patch's change in %s was never executed: a pass says nothing about it"
			 " (0 of %d changed lines reached", acc->unreached_funcs.ptr, acc->changed);
		/* each file named with its own count when there are several */
		buf_addf(s, "%s%s)", acc->nfiles > 1 ? ": " : "", acc->nfiles > 1 ? acc->files.ptr : "");
	} else {
		buf_addf(s, "reached %d of %d changed lines", acc->reached, acc->changed);
		if (acc->nfiles > 1)
			buf_addf(s, " (%s)", acc->files.ptr);
		if (acc->reached < acc->changed)
			buf_addf(s, "; never executed: %s", acc->unreached_funcs.ptr);
	}
	if (acc->not_measured.len)
		buf_addf(s, "; not measured: %s", acc->not_measured.ptr);
	if (acc->no_lines.len)
		buf_addf(s, "; no lines to reach: %s", acc->no_lines.ptr);
}
