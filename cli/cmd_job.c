/*
 * bugbridge job: queue, inspect and cancel kernel test jobs by hand.
 *
 *   job add --bug ID (--patch FILE | --series DIR | --none) [--baseline]
 *           [--base B] [--boot-args "TOKEN..."]
 *   job show ID [--json] [--kcidb]
 *   job list [--json]
 *   job cancel ID
 *   job retry ID
 *
 * `add` goes through job_enqueue() like every other producer of jobs; a
 * --patch or --series first becomes a candidates row with source 'manual'
 * (the same content on the same bug is the same candidate).  `show` reads
 * what the runner recorded through job_record_load(): stages with their
 * durations (a running stage shows its time so far), verdict, what changed
 * against the baseline, each test case and each failure signature, and
 * where the logs are; --json is job_record_json(), /api/jobs/<id>'s document.
 * `retry` is job_retry(): an infra-error runs again, a job waiting for its
 * retry delay or a budget becomes due now.
 */
#include "app.h"
#include "xalloc.h"
#include "cli.h"
#include "config.h"
#include "db.h"
#include "job.h"
#include "job_queue.h"
#include "bases.h"
#include "job_record.h"
#include "kcidb.h"
#include "log.h"
#include "sha256.h"
#include "hex.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

DB_SQL(sql_cmdjob_cand_add,
       "INSERT OR IGNORE INTO candidates (bug_id, source, kind, name, sha256, content, path,"
       " patch_count) VALUES (?, 'manual', ?, ?, ?, ?, ?, ?)");
DB_SQL(sql_cmdjob_cand_find,
       "SELECT id FROM candidates WHERE bug_id = ? AND sha256 = ?");
DB_SQL(sql_cmdjob_list,
       "SELECT id, bug_id, state, coalesce(verdict, ''), coalesce(change, ''),"
       " coalesce(progress, ''), created_at FROM jobs ORDER BY id DESC LIMIT ?");

static const char usage[] =
	"usage: bugbridge job add --bug ID (--patch FILE | --series DIR | --none) [--baseline]\n"
	"                         [--base B] [--boot-args \"TOKEN...\"]\n"
	"       bugbridge job show ID [--json] [--kcidb]\n"
	"       bugbridge job list [--json] [--limit N]\n"
	"       bugbridge job cancel ID\n"
	"       bugbridge job retry ID\n"
	"\n"
	"Kernel test jobs.  `add` queues one and prints its id: --patch FILE is a\n"
	"single diff or an mbox of patches, --series DIR a quilt series directory\n"
	"(a `series` file naming the patches), --none the unpatched base.\n"
	"--baseline also runs the unpatched base, so the verdict says what the\n"
	"patch changed (FAIL->PASS, PASS->FAIL, FAIL->FAIL, PASS->PASS).\n"
	"--base B builds on that kernel: a kept series (6.12) or a release of the\n"
	"archive (6.1.170, 6.1.170-3), which the runner fetches; without it, the\n"
	"series nearest the version the bug names ([runner] bases).\n"
	"--boot-args adds kernel command-line tokens to every boot of the job\n"
	"([A-Za-z0-9_.,:=-]: bb_mutant=N for the mutation campaign's schemata kernel).\n"
	"`show` prints the state, stages with durations, verdict, test cases,\n"
	"failure signatures and log paths; --json prints the job's JSON document\n"
	"(the same as GET /api/jobs/ID), --kcidb a KCIDB v5.3 document.\n"
	"`cancel` stops a queued or running job.\n"
	"`retry` queues a job that ended in infra-error again (same id, a fresh round\n"
	"of [runner] max_attempts tries), or makes a queued job that waits for its\n"
	"retry delay or a budget due now.  Other verdicts stand: `add` a new job.\n";

static int parse_id(const char *s, sqlite3_int64 *id)
{
	char *end;

	errno = 0;
	*id = strtoll(s, &end, 10);
	return errno || *end || *id <= 0 ? -1 : 0;
}

static double now_real(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* ---- add ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A series dir's identity: its series file and every file beside it. */
static int series_hash(const char *dir, char out[65], int *npatches, struct buf *err)
{
	struct sha256 ctx;
	unsigned char d[SHA256_LEN];
	struct buf series = BUF_INIT, path = BUF_INIT;
	DIR *dp = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	int n = 0, ret = -1;

	buf_addf(&path, "%s/series", dir);
	if (!dp || buf_read_file(&series, path.ptr)) {
		buf_addf(err, "'%s' is not a series directory (no readable series file)", dir);
		goto out;
	}
	*npatches = 0;
	for (char *line = series.ptr; *line; ) {
		char *nl = strchr(line, '\n');
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line && *line != '#' && *line != '\n')
			(*npatches)++;
		if (!nl)
			break;
		line = nl + 1;
	}
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	if (n) /* qsort's base must not be NULL */
		qsort(names, n, sizeof(*names), cmp_str);
	sha256_init(&ctx);
	for (int i = 0; i < n; i++) {
		struct buf text = BUF_INIT;
		buf_reset(&path);
		buf_addf(&path, "%s/%s", dir, names[i]);
		sha256_update(&ctx, names[i], strlen(names[i]) + 1);
		if (!buf_read_file(&text, path.ptr))
			sha256_update(&ctx, text.ptr, text.len);
		buf_release(&text);
	}
	sha256_final(&ctx, d);
	hex_encode(out, d, SHA256_LEN);
	ret = 0;
out:
	if (dp)
		closedir(dp);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	buf_release(&series);
	buf_release(&path);
	return ret;
}

static int add_candidate(struct db *db, sqlite3_int64 bug, const char *kind, const char *name,
			 const char *sha, const struct buf *content, const char *path,
			 int count, sqlite3_int64 *id)
{
	sqlite3_stmt *st = db_stmt(db, sql_cmdjob_cand_add);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	db_bind_text(st, 2, kind);
	db_bind_text(st, 3, name);
	db_bind_text(st, 4, sha);
	if (content)
		sqlite3_bind_blob(st, 5, content->ptr, content->len, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 5);
	db_bind_text(st, 6, path);
	sqlite3_bind_int(st, 7, count);
	if (db_step_done(db, st))
		return -1;
	st = db_stmt(db, sql_cmdjob_cand_find);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, bug);
	db_bind_text(st, 2, sha);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return error("job: candidate vanished");
	}
	*id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return 0;
}

/* Patches in an mbox: "From " lines that start messages. */
static int count_messages(const struct buf *b)
{
	int n = 0;

	for (size_t i = 0; i < b->len; i++)
		if ((i == 0 || b->ptr[i - 1] == '\n') && !strncmp(b->ptr + i, "From ", 5))
			n++;
	return n ? n : 1;
}

static int job_add(struct db *db, sqlite3_int64 bug, const char *patch, const char *series,
		   bool baseline, const char *base_arg, const char *boot_args)
{
	struct job_spec spec = { .bug_id = bug, .with_baseline = baseline,
				 .boot_args = boot_args };
	struct buf content = BUF_INIT, err = BUF_INIT, name = BUF_INIT, reason = BUF_INIT;
	sqlite3_int64 id = 0;
	char sha[65];
	int ret = 1;

	if (base_arg) {
		if (base_resolve(base_arg, &name, &err)) {
			fprintf(stderr, "bugbridge job: %s\n", err.ptr);
			db = NULL;
			goto out;
		}
		spec.base = name.ptr;
		buf_addf(&reason, "asked for: bugbridge job add --base %s", base_arg);
		spec.base_reason = reason.ptr;
	}
	if (db_begin(db)) {
		db = NULL;
		goto out;
	}
	if (patch) {
		const char *base = strrchr(patch, '/') ? strrchr(patch, '/') + 1 : patch;
		bool mbox;
		buf_init(&content, 64 << 20);
		if (buf_read_file(&content, patch)) {
			fprintf(stderr, "bugbridge job: cannot read '%s': %s\n", patch,
				strerror(errno));
			goto out;
		}
		mbox = !strncmp(content.ptr, "From ", 5);
		sha256_hex(content.ptr, content.len, sha);
		if (add_candidate(db, bug, mbox ? "mbox" : "patch", base, sha, &content, NULL,
				  mbox ? count_messages(&content) : 1, &spec.candidate_id))
			goto out;
	} else if (series) {
		char real[PATH_MAX];
		int n = 0;
		if (!realpath(series, real) || series_hash(real, sha, &n, &err)) {
			fprintf(stderr, "bugbridge job: %s\n",
				err.len ? err.ptr : "no such series directory");
			goto out;
		}
		if (add_candidate(db, bug, "series", strrchr(real, '/') + 1, sha, NULL, real, n,
				  &spec.candidate_id))
			goto out;
	}
	if (job_enqueue(db, &spec, &id))
		goto out;
	if (db_commit(db))
		goto out;
	db = NULL;
	printf("%lld\n", (long long)id);
	ret = 0;
out:
	if (db)
		db_rollback(db);
	buf_release(&content);
	buf_release(&err);
	buf_release(&name);
	buf_release(&reason);
	return ret;
}

/* ---- show ---- */

static void print_indented(const char *text)
{
	for (const char *p = text; p && *p; ) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		printf("  %.*s\n", len, p);
		p = nl ? nl + 1 : p + len;
	}
}

/* Whose the job is, its lane, and what it waits for. */
static void print_queue(const struct job_record *j)
{
	char at[32];
	time_t t = (time_t)j->not_before;

	printf("for: %s (%s)\n", *j->account ? j->account : "the operator",
	       job_lane_name(j->lane));
	if (strcmp(j->state, "queued") || j->not_before <= time(NULL))
		return;
	strftime(at, sizeof(at), "%Y-%m-%d %H:%M:%S", gmtime(&t));
	printf("not before: %s UTC%s%s\n", at, j->held ? ": " : "", job_str(j->held));
}

static void print_head(const struct job_record *j)
{
	const char *kv = j->kernel_version;

	printf("job %lld: %s", (long long)j->id, j->state);
	if (j->verdict)
		printf(", verdict %s", j->verdict);
	if (j->change)
		printf(" (%s)", j->change);
	putchar('\n');
	printf("bug %lld  base %s%s%s%s  kind %s  attempts %d\n", (long long)j->bug_id, j->base,
	       kv ? " (" : "", kv ? kv : "", kv ? ")" : "", j->kind, j->attempts);
	if (j->base_reason)
		printf("base chosen: %s\n", j->base_reason);
	if (*j->purpose)
		printf("part of: the %s of job %lld\n", strcmp(j->purpose, "backtest") ?
		       "release bisection" : "back-test", (long long)j->parent_id);
	if (j->candidate_id) {
		printf("patch: candidate %lld, %s '%s'", (long long)j->candidate_id, j->cand.kind,
		       j->cand.name);
		if (j->patch_count)
			printf(", first patches: %d", j->patch_count);
		putchar('\n');
	} else {
		printf("patch: none (the unpatched base)\n");
	}
	printf("baseline: %s\n", j->with_baseline ? "yes" : "no");
	print_queue(j);
	if (j->accel)
		printf("accel: %s\n", j->accel);
	if (j->boot_args && *j->boot_args)	/* none given is "", not a line */
		printf("boot args: %s\n", j->boot_args);
	if (!strcmp(j->state, "running") || !strcmp(j->state, "queued"))
		printf("progress: %s\n", job_str(j->progress));
	if (j->verdict_detail) {
		printf("detail:\n");
		print_indented(j->verdict_detail);
	}
}

static void print_stages(const struct job_record *j)
{
	double now = now_real();

	if (j->nstages)
		printf("stages:\n");
	for (int i = 0; i < j->nstages; i++) {
		const struct job_record_stage *s = &j->stages[i];
		double end = s->open ? now : s->finished_at;
		const char *detail = job_str(s->detail);

		printf("  #%d %-8s %-9s %-7s %7.1f s%s%s\n", s->attempt, s->variant, s->stage,
		       s->status, (long)((end - s->started_at) * 10 + 0.5) / 10.0,
		       *detail ? "  " : "", detail);
	}
}

/* Test results in the order the runner recorded them, patched first. */
static int cmp_recorded(const void *a, const void *b)
{
	const struct job_record_test *x = *(const struct job_record_test *const *)a;
	const struct job_record_test *y = *(const struct job_record_test *const *)b;
	int c = strcmp(y->variant, x->variant);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

static void print_test(const struct job_record_test *t)
{
	char counts[64];

	if (t->failures)
		snprintf(counts, sizeof(counts), "failed %d/%d%s", t->failures, t->runs,
			 t->failures < t->runs ? ": flaky" : "");
	else
		snprintf(counts, sizeof(counts), "%s",
			 !strcmp(t->status, "skip") ? "skipped" : "passed");
	printf("  %-8s %-32s %-5s %-20s %s\n", t->variant, t->name, t->status, counts,
	       job_str(t->change));
	if (t->failures && *t->diagnostics) {
		const char *d = t->diagnostics, *nl = strchr(d, '\n');
		printf("      %.*s\n", nl ? (int)(nl - d) : (int)strlen(d), d);
	}
}

static void print_job(const struct job_record *j)
{
	const struct job_record_test **tests = xcalloc(j->ntests + 1, sizeof(*tests));

	print_head(j);
	print_stages(j);
	for (int i = 0; i < j->ntests; i++)
		tests[i] = &j->tests[i];
	qsort(tests, j->ntests, sizeof(*tests), cmp_recorded);
	if (j->ntests)
		printf("tests:\n");
	for (int i = 0; i < j->ntests; i++)
		print_test(tests[i]);
	free(tests);
	if (j->nsigs)
		printf("signatures:\n");
	for (int i = 0; i < j->nsigs; i++) {
		const struct job_record_sig *s = &j->sigs[i];
		printf("  %-8s %-7s %.12s  %s\n", s->variant, s->kind, s->hash, s->title);
	}
	if (j->log_dir)
		printf("logs: %s\n", j->log_dir);
}

static int job_show(struct db *db, sqlite3_int64 id, bool json, bool kcidb)
{
	struct job_record job = JOB_RECORD_INIT;
	int rc;

	if (kcidb) {
		struct buf out = BUF_INIT;
		int ret = kcidb_export(db, id, &out);
		if (ret)
			fprintf(stderr, "bugbridge job: %s\n", out.ptr);
		else
			printf("%s\n", out.ptr);
		buf_release(&out);
		return ret ? 1 : 0;
	}
	/* the text shows the log directory itself, the JSON the logs' URLs */
	rc = job_record_load(db, id, json ? JOB_LOAD_DOC : JOB_LOAD_DOC & ~JOB_LOAD_LOGS, &job);
	if (!rc)
		fprintf(stderr, "bugbridge job: no job %lld\n", (long long)id);
	if (rc <= 0)
		return 1;
	if (json) {
		json_object *o = job_record_json(&job);
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		print_job(&job);
	}
	job_record_release(&job);
	return 0;
}

/* ---- list ---- */

static json_object *str_or_null(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return NULL;
	return json_object_new_string(db_col_text(st, col));
}

static json_object *int_or_null(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return NULL;
	return json_object_new_int64(sqlite3_column_int64(st, col));
}

static int job_list(struct db *db, bool json, int limit)
{
	sqlite3_stmt *st = db_stmt(db, sql_cmdjob_list);
	json_object *arr = json_object_new_array();

	if (!st)
		return 1;
	sqlite3_bind_int(st, 1, limit);
	if (!json)
		printf("%-6s %-6s %-9s %-13s %-11s %s\n", "id", "bug", "state", "verdict",
		       "change", "progress");
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (json) {
			json_object *j = json_object_new_object();
			json_object_object_add(j, "id", int_or_null(st, 0));
			json_object_object_add(j, "bug_id", int_or_null(st, 1));
			json_object_object_add(j, "state", str_or_null(st, 2));
			json_object_object_add(j, "verdict", str_or_null(st, 3));
			json_object_object_add(j, "change", str_or_null(st, 4));
			json_object_object_add(j, "progress", str_or_null(st, 5));
			json_object_array_add(arr, j);
		} else {
			printf("%-6lld %-6lld %-9s %-13s %-11s %s\n", sqlite3_column_int64(st, 0),
			       sqlite3_column_int64(st, 1), db_col_text(st, 2), db_col_text(st, 3),
			       db_col_text(st, 4), db_col_text(st, 5));
		}
	}
	sqlite3_reset(st);
	if (json)
		printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY));
	json_object_put(arr);
	return 0;
}

/* ---- retry ---- */

static int job_retry_cmd(struct db *db, sqlite3_int64 id)
{
	struct buf err = BUF_INIT;
	int ret = 1;

	if (db_begin(db)) {
		fprintf(stderr, "bugbridge job: %s\n", db_errmsg(db));
		return 1;
	}
	if (job_retry(db, id, &err)) {
		db_rollback(db);
		fprintf(stderr, "bugbridge job: %s\n", err.ptr);
	} else if (db_commit(db)) {
		fprintf(stderr, "bugbridge job: cannot retry job %lld: %s\n", (long long)id,
			db_errmsg(db));
	} else {
		printf("job %lld: queued again\n", (long long)id);
		ret = 0;
	}
	buf_release(&err);
	return ret;
}

/* ---- dispatch ---- */

static int job_main(struct db *db, const char *sub, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bug", required_argument, NULL, 'b' },
		{ "patch", required_argument, NULL, 'p' },
		{ "series", required_argument, NULL, 's' },
		{ "none", no_argument, NULL, 'n' },
		{ "baseline", no_argument, NULL, 'B' },
		{ "base", required_argument, NULL, 'K' },
		{ "boot-args", required_argument, NULL, 'A' },
		{ "json", no_argument, NULL, 'j' },
		{ "kcidb", no_argument, NULL, 'k' },
		{ "limit", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	const char *patch = NULL, *series = NULL, *base = NULL, *boot_args = NULL;
	sqlite3_int64 bug = 0, id = 0;
	bool none = false, baseline = false, json = false, kcidb = false;
	int c, limit = 50;

	opterr = 0;
	optind = 0;	/* 0: glibc re-initialises (the main program ran getopt before) */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (parse_id(optarg, &bug))
				app_usage_error("bugbridge job", "--bug takes a bug id");
			break;
		case 'p': patch = optarg; break;
		case 's': series = optarg; break;
		case 'n': none = true; break;
		case 'B': baseline = true; break;
		case 'K': base = optarg; break;
		case 'A': boot_args = optarg; break;
		case 'j': json = true; break;
		case 'k': kcidb = true; break;
		case 'l': limit = atoi(optarg) > 0 ? atoi(optarg) : 50; break;
		default: app_option_error("bugbridge job", argv, optind, optopt);
		}
	}
	if (!strcmp(sub, "add")) {
		if (!bug)
			app_usage_error("bugbridge job", "add needs --bug ID");
		if ((patch != NULL) + (series != NULL) + none != 1)
			app_usage_error("bugbridge job", "add needs one of --patch, --series, --none");
		if (optind != argc)
			app_usage_error("bugbridge job", "unexpected argument");
		if (!job_boot_args_ok(boot_args))
			app_usage_error("bugbridge job", "--boot-args takes [A-Za-z0-9_.,:=-] tokens");
		return job_add(db, bug, patch, series, baseline, base, boot_args);
	}
	if (!strcmp(sub, "list"))
		return job_list(db, json, limit);
	if (optind + 1 != argc || parse_id(argv[optind], &id))
		app_usage_error("bugbridge job", "a job id is needed");
	if (!strcmp(sub, "show"))
		return job_show(db, id, json, kcidb);
	if (!strcmp(sub, "retry"))
		return job_retry_cmd(db, id);
	if (!strcmp(sub, "cancel")) {
		struct buf err = BUF_INIT;
		int ret = 0;
		if (job_request_cancel(db, id, &err)) {
			fprintf(stderr, "bugbridge job: %s\n", err.ptr);
			ret = 1;
		} else {
			printf("job %lld: cancel requested\n", (long long)id);
		}
		buf_release(&err);
		return ret;
	}
	app_usage_error("bugbridge job", "unknown subcommand (add, show, list, cancel, retry)");
}

int cmd_job(int argc, char **argv)
{
	struct buf err = BUF_INIT;
	struct db db;
	int ret;

	if (cmd_wants_help(argc, argv, usage))
		return 0;
	if (argc < 2)
		app_usage_error("bugbridge job", "a subcommand is needed (add, show, list, cancel, retry)");
	if (app_open_db(&db, false, &err)) {
		fprintf(stderr, "bugbridge: %s\n", err.ptr);
		buf_release(&err);
		return 1;
	}
	ret = job_main(&db, argv[1], argc - 1, argv + 1);
	db_close(&db);
	buf_release(&err);
	return ret;
}
