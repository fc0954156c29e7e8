/*
 * coverage: did the run execute the lines the patch changed?  (issue 15)
 *
 * With [runner] coverage on, the patched variant of a job with patches is
 * configured with configs/gcov.config on top of the others (the harness
 * makes drivers/scsi profile itself under CONFIG_GCOV_KERNEL).  After the
 * suite, the guest prints drivers/scsi's .gcda files on the console
 * (suite/bbgcov.c: "#bbgcov file PATH LEN", "#g BASE64"..., "#bbgcov
 * end"); coverage_collect() writes them into the build directory beside
 * the compiler's .gcno files.  coverage_measure() then takes, for each C
 * file the candidate touched, the lines it changed (`diff -U0` of the
 * pristine base against the job's tree, so a series counts as a whole),
 * and asks gcov (in the build sandbox: its input came from the patched
 * kernel) which of them are executable and which ran.
 *
 * A changed line gcov has no record of (a comment, a brace, a declaration)
 * is not counted; a pure deletion counts as the next executable line after
 * it.  Files outside drivers/scsi have no gcov data and are named as not
 * measured.  The result is one line for the verdict ("reached 7 of 7
 * changed lines", or which function's change never ran) and a log,
 * <variant>-coverage.log, with every counted line and its count.
 *
 * Everything that can go wrong here leaves the reach unmeasured: it never
 * turns a job into an infra-error.
 */
#include "coverage.h"
#include "run.h"
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

void coverage_blobs_free(struct gcda_blob *b, int n)
{
	for (int i = 0; i < n; i++) {
		free(b[i].path);
		free(b[i].data);
	}
	free(b);
}

int coverage_blobs(const char *text, size_t len, struct gcda_blob **out, int *n)
{
	const char *p = text, *end = text + len;
	struct buf data = BUF_INIT;
	char path[256];
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
			char line[300];
			snprintf(line, sizeof(line), "%.*s", (int)(l < 299 ? l : 299), p);
			buf_reset(&data);
			in = sscanf(line, "#bbgcov file %255s %zu", path, &want) == 2 &&
			     gcda_name_ok(path);
			bad = false;
		} else if (in && l >= 3 && !strncmp(p, "#g ", 3)) {
			bad |= base64_decode(&data, p + 3, l - 3) != 0;
		} else if (in && l == 11 && !strncmp(p, "#bbgcov end", 11)) {
			if (!bad && !data.overflow && data.len == want) {
				*out = xreallocarray(*out, *n + 1, sizeof(**out));
				(*out)[*n].path = xstrdup(path);
				(*out)[*n].len = data.len;
				(*out)[*n].data = (unsigned char *)buf_detach(&data, NULL);
				(*n)++;
				buf_init(&data, 64 << 20);
			}
			in = false;
		}
		p = nl ? nl + 1 : end;
	}
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
	struct buf rel = BUF_INIT, line = BUF_INIT, log = BUF_INIT;
	bool ok;

	buf_addf(&rel, "%s/%s", v->out, b->path);
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
	int n, written = 0;

	coverage_blobs(console->ptr, console->len, &b, &n);
	for (int i = 0; i < n; i++)
		written += write_gcda(r, v, &b[i]);
	coverage_blobs_free(b, n);
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

/* ---- reach of one file from gcov's JSON (pure) ---- */

struct gcov_line {
	int line;
	long long count;
};

static json_object *source_entry(json_object *doc, const char *file)
{
	json_object *files;
	size_t flen = strlen(file);

	if (!json_object_object_get_ex(doc, "files", &files))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(files); i++) {
		json_object *f = json_object_array_get_idx(files, i), *name;
		const char *s;
		size_t l;
		if (!json_object_object_get_ex(f, "file", &name))
			continue;
		s = json_object_get_string(name);
		l = strlen(s);
		if (l >= flen && !strcmp(s + l - flen, file) && (l == flen || s[l - flen - 1] == '/'))
			return f;
	}
	return NULL;
}

static const char *function_at(json_object *entry, int line)
{
	json_object *funcs, *f, *v;
	const char *best = NULL;
	int best_start = -1;

	if (!json_object_object_get_ex(entry, "functions", &funcs))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(funcs); i++) {
		int start, endl;
		f = json_object_array_get_idx(funcs, i);
		if (!json_object_object_get_ex(f, "start_line", &v))
			continue;
		start = json_object_get_int(v);
		endl = json_object_object_get_ex(f, "end_line", &v) ? json_object_get_int(v) : start;
		if (line >= start && line <= endl && start > best_start &&
		    json_object_object_get_ex(f, "name", &v)) {
			best = json_object_get_string(v);
			best_start = start;
		}
	}
	return best;
}

/* The executable lines gcov knows, sorted by line. */
static int gcov_lines(json_object *entry, struct gcov_line **out)
{
	json_object *lines, *v;
	int n = 0;

	*out = NULL;
	if (!json_object_object_get_ex(entry, "lines", &lines))
		return 0;
	for (size_t i = 0; i < json_object_array_length(lines); i++) {
		json_object *l = json_object_array_get_idx(lines, i);
		struct gcov_line g = { 0, 0 };
		if (!json_object_object_get_ex(l, "line_number", &v))
			continue;
		g.line = json_object_get_int(v);
		if (json_object_object_get_ex(l, "count", &v))
			g.count = json_object_get_int64(v);
		/* a line may appear once per inlined copy: add them up */
		if (n && (*out)[n - 1].line == g.line) {
			(*out)[n - 1].count += g.count;
			continue;
		}
		*out = xreallocarray(*out, n + 1, sizeof(**out));
		(*out)[n++] = g;
	}
	return n;
}

static const struct gcov_line *find_line(const struct gcov_line *g, int n, int line)
{
	for (int i = 0; i < n; i++)
		if (g[i].line == line)
			return &g[i];
	return NULL;
}

/* A deletion counts as the next executable line (within 5), else the one before. */
static const struct gcov_line *deletion_line(const struct gcov_line *g, int n, int line)
{
	const struct gcov_line *best = NULL;

	for (int i = 0; i < n; i++) {
		if (g[i].line >= line && g[i].line < line + 5)
			return &g[i];
		if (g[i].line < line && g[i].line >= line - 5)
			best = &g[i];
	}
	return best;
}

static void note_function(struct reach *acc, const char *file, const char *func)
{
	struct buf key = BUF_INIT;
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;

	buf_addf(&key, "%s (%s)", func ? func : "?", base);
	if (!strstr(acc->unreached_funcs.ptr, key.ptr))
		buf_addf(&acc->unreached_funcs, "%s%s", acc->unreached_funcs.len ? ", " : "",
			 key.ptr);
	buf_release(&key);
}

int coverage_reach_file(const char *file, const char *json_text, const struct changed_line *cl,
			int ncl, struct reach *acc)
{
	json_object *doc = json_tokener_parse(json_text), *entry;
	struct gcov_line *g = NULL;
	int ng, counted = 0;
	int last = -1;

	entry = doc ? source_entry(doc, file) : NULL;
	if (!entry) {
		json_object_put(doc);
		return -1;
	}
	ng = gcov_lines(entry, &g);
	for (int i = 0; i < ncl; i++) {
		const struct gcov_line *l = cl[i].deletion ? deletion_line(g, ng, cl[i].line)
							   : find_line(g, ng, cl[i].line);
		if (!l || l->line == last)
			continue;	/* not executable, or counted already */
		last = l->line;
		counted++;
		acc->changed++;
		if (l->count > 0)
			acc->reached++;
		else
			note_function(acc, file, function_at(entry, l->line));
		buf_addf(&acc->log, "%s:%d %s %lld%s\n", file, l->line,
			 l->count > 0 ? "executed" : "NOT executed", l->count,
			 cl[i].deletion ? " (after a deleted line)" : "");
	}
	free(g);
	json_object_put(doc);
	return counted;
}

void reach_init(struct reach *acc)
{
	memset(acc, 0, sizeof(*acc));
	buf_init(&acc->unreached_funcs, 0);
	buf_init(&acc->not_measured, 0);
	buf_init(&acc->log, 0);
	buf_init(&acc->summary, 0);
}

void reach_release(struct reach *acc)
{
	buf_release(&acc->unreached_funcs);
	buf_release(&acc->not_measured);
	buf_release(&acc->log);
	buf_release(&acc->summary);
}

void coverage_summary(struct reach *acc)
{
	struct buf *s = &acc->summary;

	buf_reset(s);
	if (!acc->changed) {
		buf_addstr(s, "no changed line that gcov can see (drivers/scsi code) was measured");
	} else if (!acc->reached) {
		buf_addf(s, "the patch's change in %s was never executed: a pass says nothing about it"
			 " (0 of %d changed lines reached)", acc->unreached_funcs.ptr, acc->changed);
	} else {
		buf_addf(s, "reached %d of %d changed lines", acc->reached, acc->changed);
		if (acc->reached < acc->changed)
			buf_addf(s, "; never executed: %s", acc->unreached_funcs.ptr);
	}
	if (acc->not_measured.len)
		buf_addf(s, "; not measured: %s", acc->not_measured.ptr);
}
