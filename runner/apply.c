/*
 * apply: a job's patches, from the candidate to the tree.
 *
 * A candidate is a single diff, an mbox (one message per patch, as `git am`
 * takes it) or a quilt series directory (a `series` file naming the patches
 * in order).  All become a list of files under <job dir>/patches.
 *
 * Each patch is first tried with `patch -p1 --dry-run`; only if that applies
 * cleanly is it applied, so a failing patch leaves no half-patched files and
 * its failure names the patch, the file and the rejected hunk (copied out of
 * the patch into the log and the verdict).
 *
 * GNU patch does much more than apply unified diffs (symlinks from git
 * diffs, ed scripts, renames), so each patch is first read by
 * patch_check() (lib/patch_check.c): anything but unified diffs of regular
 * files under relative paths is refused, as apply-failed with the reason.
 * Then patch runs in the sandbox as the build user, seeing only the job's
 * tree (sandbox.c): the check is the policy, the sandbox what holds if the
 * check or patch has a hole.
 */
#include "apply.h"
#include "run.h"
#include "stage.h"
#include "paths.h"
#include "sandbox.h"
#include "buf.h"
#include "child.h"
#include "db.h"
#include "patch.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"
#include "wfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

DB_SQL(sql_apply_candidate,
       "SELECT kind, name, content, path FROM candidates WHERE id = ?");

void strv_free(char **v, int n)
{
	for (int i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void patch_items_free(struct patch_item *items, int n)
{
	for (int i = 0; items && i < n; i++) {
		free(items[i].name);
		free(items[i].path);
	}
	free(items);
}

static void add_item(struct patch_item **items, int *n, const char *name, const char *path)
{
	*items = xrealloc(*items, (*n + 1) * sizeof(**items));
	(*items)[*n].name = xstrdup(name);
	(*items)[*n].path = xstrdup(path);
	(*n)++;
}

/* A file-name-safe version of a subject or name. */
static void slug(const char *s, size_t len, struct buf *out)
{
	size_t start = out->len;

	for (size_t i = 0; i < len && out->len - start < 50; i++) {
		unsigned char c = s[i];
		if (isalnum(c) || c == '.' || c == '_')
			buf_addch(out, c);
		else if (out->len > start && out->ptr[out->len - 1] != '-')
			buf_addch(out, '-');
	}
	while (out->len > start && out->ptr[out->len - 1] == '-')
		buf_setlen(out, out->len - 1);
	if (out->len == start)
		buf_addstr(out, "patch");
}

/*
 * The message's "Subject:" line into name, as it was written ("[PATCH 2/6]
 * scsi: sr: ..."), and a slug of it (after any "[PATCH n/m]") into file;
 * "message N" and "patch" without one.
 */
static void subject_of(const char *msg, size_t len, int n, struct buf *name, struct buf *file)
{
	const char *end = msg + len;

	for (const char *p = msg; p < end; ) {
		const char *nl = memchr(p, '\n', end - p);
		const char *e = nl ? nl : end;
		if (e == p)
			break;	/* end of headers */
		if (e - p > 9 && !strncmp(p, "Subject: ", 9)) {
			const char *s = p + 9;
			buf_add(name, s, e - s - (e[-1] == '\r'));
			if (*s == '[') {
				const char *close = memchr(s, ']', e - s);
				if (close)
					s = close + 1;
			}
			slug(s, e - s, file);
			return;
		}
		p = nl ? nl + 1 : end;
	}
	buf_addf(name, "message %d", n);
	buf_addstr(file, "patch");
}

/* mbox: a message starts at "From " at the start of the text or a line. */
static int split_mbox(struct run *r, const char *text, size_t len, const char *dir)
{
	size_t start = 0;
	int n = 0;

	while (start < len) {
		size_t next = start + 1;
		struct buf name = BUF_INIT, file = BUF_INIT, path = BUF_INIT;
		while (next < len && !(text[next - 1] == '\n' && !strncmp(text + next, "From ", 5)))
			next++;
		n++;
		/* on disk a safe, numbered name; in messages the subject as written */
		buf_addf(&file, "%04d-", n);
		subject_of(text + start, next - start, n, &name, &file);
		buf_addstr(&file, ".patch");
		buf_addf(&path, "%s/%s", dir, file.ptr);
		if (write_file(path.ptr, text + start, next - start, 0)) {
			error("cannot write '%s': %s", path.ptr, strerror(errno));
			buf_release(&name);
			buf_release(&file);
			buf_release(&path);
			return -1;
		}
		add_item(&r->patches, &r->npatches, name.ptr, path.ptr);
		buf_release(&name);
		buf_release(&file);
		buf_release(&path);
		start = next;
	}
	return 0;
}

int apply_load_series_dir(const char *dir, const char *dest, struct patch_item **items, int *n,
			  struct buf *err)
{
	struct buf series = BUF_INIT, path = BUF_INIT;
	char *line, *save = NULL;
	int ret = -1;

	(void)dest;
	buf_addf(&path, "%s/series", dir);
	if (buf_read_file(&series, path.ptr)) {
		buf_addf(err, "cannot read '%s': %s", path.ptr, strerror(errno));
		goto out;
	}
	for (line = strtok_r(series.ptr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *name = line, *e;
		while (isspace((unsigned char)*name))
			name++;
		if (!*name || *name == '#')
			continue;
		for (e = name; *e && !isspace((unsigned char)*e); e++)
			;
		*e = '\0';	/* quilt options after the name (-p1) are ignored */
		if (*name == '/' || strstr(name, "..")) {
			buf_addf(err, "series '%s' names an unsafe path '%s'", dir, name);
			goto out;
		}
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir, name);
		if (!path_exists(path.ptr)) {
			buf_addf(err, "series '%s' names '%s', which does not exist", dir, name);
			goto out;
		}
		add_item(items, n, name, path.ptr);
	}
	ret = 0;
out:
	buf_release(&series);
	buf_release(&path);
	return ret;
}

int apply_load_candidate(struct run *r)
{
	struct buf dir = BUF_INIT, name = BUF_INIT, path = BUF_INIT;
	sqlite3_stmt *st;
	int ret = -1;

	if (!r->job->candidate_id)
		return 0;
	buf_addf(&dir, "%s/patches", r->jobdir);
	if (mkdir_p(dir.ptr, 0755))
		goto out;
	st = db_stmt(r->db, sql_apply_candidate);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, r->job->candidate_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		buf_addf(&r->infra, "candidate %lld does not exist",
			 (long long)r->job->candidate_id);
		goto out;
	}
	{
		const char *kind = db_col_text(st, 0), *cpath = db_col_text(st, 3);
		const char *content = sqlite3_column_blob(st, 2);
		size_t len = sqlite3_column_bytes(st, 2);

		if (!strcmp(kind, "series") && *cpath) {
			ret = apply_load_series_dir(cpath, dir.ptr, &r->patches, &r->npatches,
						    &r->infra);
		} else if (!strcmp(kind, "mbox") && content) {
			ret = split_mbox(r, content, len, dir.ptr);
		} else if (content) {
			const char *n = db_col_text(st, 1);
			size_t digits = strspn(n, "0123456789");
			/*
			 * On disk a safe name, numbered ("0001-foo.patch" from git
			 * format-patch keeps its own number); in messages and
			 * comments the name it was given (the attachment's file
			 * name), never the disk's.
			 */
			if (!digits || n[digits] != '-')
				buf_addstr(&name, "0001-");
			slug(n, strlen(n), &name);
			if (!strstr(name.ptr, ".patch") && !strstr(name.ptr, ".diff"))
				buf_addstr(&name, ".patch");
			buf_addf(&path, "%s/%s", dir.ptr, name.ptr);
			ret = write_file(path.ptr, content, len, 0) ?
			      error("cannot write '%s': %s", path.ptr, strerror(errno)) : 0;
			if (!ret)
				add_item(&r->patches, &r->npatches, *n ? n : "patch", path.ptr);
		} else {
			buf_addf(&r->infra, "candidate %lld has no content",
				 (long long)r->job->candidate_id);
		}
	}
	sqlite3_reset(st);
	if (!ret && r->job->patch_count > 0 && r->job->patch_count < r->npatches) {
		for (int i = r->job->patch_count; i < r->npatches; i++) {
			free(r->patches[i].name);
			free(r->patches[i].path);
		}
		r->npatches = r->job->patch_count;
	}
out:
	buf_release(&dir);
	buf_release(&name);
	buf_release(&path);
	return ret;
}

/* The counts of a "@@ -a,b +c,d @@" header (a count left out is 1); false if it is none. */
static bool hunk_counts(const char *p, long *old, long *new)
{
	long a, c;
	int n = 0;

	*old = *new = 1;
	if (sscanf(p, "@@ -%ld,%ld +%ld,%ld @@%n", &a, old, &c, new, &n) == 4 && n)
		return true;
	n = 0;
	if (sscanf(p, "@@ -%ld,%ld +%ld @@%n", &a, old, &c, &n) == 3 && n)
		return true;
	n = 0;
	if (sscanf(p, "@@ -%ld +%ld,%ld @@%n", &a, &c, new, &n) == 3 && n)
		return true;
	n = 0;
	return sscanf(p, "@@ -%ld +%ld @@%n", &a, &c, &n) == 2 && n;
}

/*
 * The text of hunk #n for file `file` in the patch, into out: its "@@"
 * header and the lines its counts take, as GNU patch reads them; not the
 * next file's "Index:", "====" or "diff" lines after it.
 */
static void find_hunk(const char *patch, const char *file, int n, struct buf *out)
{
	const char *p = patch, *in_file = NULL;
	int hunk = 0;
	long old = 0, new = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (in_file && hunk == n) {
			char c = len ? *p : ' ';

			if (c == '\\' && len > 1)
				;	/* "\ No newline at end of file" counts for nothing */
			else if (c == ' ' && old > 0 && new > 0)
				old--, new--;
			else if (c == '-' && old > 0)
				old--;
			else if (c == '+' && new > 0)
				new--;
			else
				break;
			buf_add(out, p, len);
			buf_addch(out, '\n');
		} else if (!strncmp(p, "+++ ", 4)) {
			/* "+++ b/drivers/scsi/sd.c\t..." -> strip one component */
			const char *name = p + 4, *slash = memchr(name, '/', len - 4);
			size_t flen = strlen(file);
			in_file = NULL;
			hunk = 0;
			if (slash && len - (slash + 1 - p) >= flen &&
			    !strncmp(slash + 1, file, flen) &&
			    (slash[1 + flen] == '\n' || slash[1 + flen] == '\t' || !slash[1 + flen]))
				in_file = p;
		} else if (in_file && !strncmp(p, "@@ ", 3) && ++hunk == n) {
			if (!hunk_counts(p, &old, &new))
				break;
			buf_add(out, p, len);
			buf_addch(out, '\n');
		}
		p = nl ? nl + 1 : p + len;
	}
}

/* Turn patch's dry-run output into "file F: hunk #N FAILED at L" + the hunks. */
static void explain(const char *patch_text, const char *output, struct buf *why)
{
	char *copy = xstrdup(output), *line, *save = NULL;
	char file[512] = "";
	int shown = 0;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int n, at;
		if (sscanf(line, "checking file %511s", file) == 1 ||
		    sscanf(line, "patching file %511s", file) == 1)
			continue;
		if (sscanf(line, "Hunk #%d FAILED at %d", &n, &at) == 2) {
			buf_addf(why, "%s: hunk #%d FAILED at %d\n", file, n, at);
			if (shown++ < 3) {
				buf_addstr(why, "rejected hunk:\n");
				find_hunk(patch_text, file, n, why);
			}
		} else if (strstr(line, "can't find file") || strstr(line, "No file to patch") ||
			   strstr(line, "Reversed (or previously applied)") ||
			   strstr(line, "malformed") || strstr(line, "Only garbage") ||
			   strstr(line, "not a regular file") || strstr(line, "Ignoring potentially")) {
			buf_addf(why, "%s\n", line);
		}
	}
	if (!why->len)
		buf_addstr(why, output);
	free(copy);
}

static void collect_touched(const char *output, char ***touched, int *n)
{
	char *copy = xstrdup(output), *line, *save = NULL;
	char file[1024];

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "patching file %1023s", file) != 1)
			continue;
		*touched = xrealloc(*touched, (*n + 1) * sizeof(**touched));
		(*touched)[(*n)++] = xstrdup(file);
	}
	free(copy);
}

/*
 * GNU patch on p in the sandbox; its output (stdout and stderr) in out,
 * within max_build_log (head and tail), and after it in the log.  Its exit
 * status, or -1 (infra).  A flood (a patch of many hunks each saying where
 * it went) is said in flood: the patch's doing.
 */
static int run_patch(const struct variant *v, const struct patch_item *p, bool dry,
		     const char *log_path, struct buf *out, struct buf *flood)
{
	const char *argv[] = { "patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch",
			       "-i", "/bb/patch", dry ? "--dry-run" : NULL, NULL };
	struct sandbox sb = { .tree_rw = v->tree, .cpu = 120, .flags = SB_DROP };
	struct sandbox_cmd cmd;
	struct child ch = CHILD_INIT;
	int rc;

	buf_reset(out);
	sb.binds[0].host = p->path;
	sb.binds[0].inside = "/bb/patch";
	sandbox_wrap(&sb, argv, &cmd);
	if (strcmp(sandbox_mode(), "bwrap"))	/* unconfined: no /bb/patch */
		for (int i = 0; i < cmd.argc; i++)
			if (!strcmp(cmd.argv[i], "/bb/patch")) {
				free(cmd.argv[i]);
				cmd.argv[i] = xstrdup(p->path);
			}
	ch.argv = (const char *const *)cmd.argv;
	ch.cwd = cmd.cwd;
	ch.capture = out;
	ch.clean_env = true;
	ch.timeout = 120;
	stage_cap_output(&ch);
	rc = stage_child(v->run, &ch);
	sandbox_cmd_release(&cmd);
	if (rc)
		return -1;
	if (log_path) {
		struct buf text = BUF_INIT;
		int rc;
		buf_addf(&text, "$ patch -p1%s -i %s\n%s", dry ? " --dry-run" : "", p->name,
			 out->ptr);
		rc = joblog_write(v->run, log_path, true, text.ptr, text.len);
		buf_release(&text);
		if (rc)
			return -1;
	}
	stage_flooded(&ch, "GNU patch", flood);
	return ch.exit_code;
}

/* FAULT_PATCH when patch_check() refuses the patch (the reason in why). */
static enum fault refused(struct run *r, const struct patch_item *p, int i, int n,
			  struct buf *why)
{
	struct buf text = BUF_INIT, reason = BUF_INIT;
	enum fault ret = FAULT_NONE;

	buf_init(&text, 64 << 20);
	/* <jobdir>/patches is ours (written before any apply, bound read-only) */
	if (buf_read_file(&text, p->path)) {
		buf_addf(&r->infra, "cannot read the patch '%s': %s", p->path, strerror(errno));
		ret = FAULT_INFRA;
	} else if (patch_check(text.ptr, text.len, &reason)) {
		buf_addf(why, "patch %d/%d '%s' is refused: %s\n", i + 1, n, p->name, reason.ptr);
		ret = FAULT_PATCH;
	}
	buf_release(&text);
	buf_release(&reason);
	return ret;
}

enum fault apply_series(struct run *r, struct variant *v, const struct patch_item *items,
			int n, const char *log_name, struct buf *why, char ***touched, int *ntouched)
{
	struct buf out = BUF_INIT, log_path = BUF_INIT, text = BUF_INIT, flood = BUF_INIT;
	enum fault ret = FAULT_NONE;

	buf_addf(&log_path, "%s/%s-%s.log", v->logs, v->name, log_name);
	for (int i = 0; i < n && !ret; i++) {
		int rc;

		if ((ret = refused(r, &items[i], i, n, why)))
			break;
		rc = run_patch(v, &items[i], true, log_path.ptr, &out, &flood);
		if (rc < 0) {
			ret = FAULT_INFRA;
		} else if (flood.len) {
			buf_addf(why, "patch %d/%d '%s' does not apply: %s\n", i + 1, n,
				 items[i].name, flood.ptr);
			ret = FAULT_PATCH;
		} else if (rc) {
			buf_reset(&text);
			buf_read_file(&text, items[i].path);
			buf_addf(why, "patch %d/%d '%s' does not apply to %s:\n", i + 1, n,
				 items[i].name, r->kernel_version);
			explain(text.ptr, out.ptr, why);
			ret = FAULT_PATCH;
		} else if ((rc = run_patch(v, &items[i], false, log_path.ptr, &out, &flood)) ||
			   flood.len) {
			buf_addf(why, "patch '%s' passed its dry run but failed to apply%s%s",
				 items[i].name, flood.len ? ": " : "", flood.ptr);
			ret = rc < 0 ? FAULT_INFRA : FAULT_PATCH;
		} else {
			collect_touched(out.ptr, touched, ntouched);
		}
	}
	if (ret == FAULT_PATCH) {
		buf_reset(&text);
		buf_addf(&text, "\n%s\n", why->ptr);
		if (joblog_write(r, log_path.ptr, true, text.ptr, text.len))
			ret = FAULT_INFRA;
	}
	buf_release(&out);
	buf_release(&log_path);
	buf_release(&text);
	buf_release(&flood);
	return ret;
}
