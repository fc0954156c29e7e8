/*
 * bugbridge job: queue, inspect and cancel kernel test jobs by hand.
 *
 *   job add --bug ID (--patch FILE | --series DIR | --none) [--baseline]
 *   job show ID [--json] [--kcidb]
 *   job list [--json]
 *   job cancel ID
 *
 * `add` goes through job_enqueue() like every other producer of jobs; a
 * --patch or --series first becomes a candidates row with source 'manual'
 * (the same content on the same bug is the same candidate).  `show` reads
 * what the runner recorded: stages with their durations (a running stage
 * shows its time so far), verdict, what changed against the baseline, each
 * test case and each failure signature, and where the logs are.
 */
#include "app.h"
#include "xalloc.h"
#include "cli.h"
#include "config.h"
#include "db.h"
#include "job.h"
#include "job_queue.h"
#include "kcidb.h"
#include "log.h"
#include "sha256.h"

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
DB_SQL(sql_cmdjob_get,
       "SELECT j.id, j.bug_id, j.candidate_id, j.kind, j.base, j.patch_count, j.with_baseline,"
       " j.state, j.stage, j.progress, j.runner, j.attempts, j.verdict, j.change,"
       " j.verdict_detail, j.accel, j.kernel_version, j.log_dir, j.created_at,"
       " j.started_at, j.finished_at, j.cancel, coalesce(c.name, ''), coalesce(c.kind, '')"
       " FROM jobs j LEFT JOIN candidates c ON c.id = j.candidate_id WHERE j.id = ?");
DB_SQL(sql_cmdjob_stages,
       "SELECT attempt, variant, stage, started_at, finished_at, status, coalesce(detail, '')"
       " FROM job_stages WHERE job_id = ? ORDER BY id");
DB_SQL(sql_cmdjob_tests,
       "SELECT variant, name, status, runs, failures, diagnostics, coalesce(change, '')"
       " FROM test_results WHERE job_id = ? ORDER BY variant DESC, id");
DB_SQL(sql_cmdjob_sigs,
       "SELECT variant, kind, title, frames, hash FROM signatures WHERE job_id = ?"
       " ORDER BY variant DESC, id");
DB_SQL(sql_cmdjob_list,
       "SELECT id, bug_id, state, coalesce(verdict, ''), coalesce(change, ''),"
       " coalesce(progress, ''), created_at FROM jobs ORDER BY id DESC LIMIT ?");

static const char usage[] =
	"usage: bugbridge job add --bug ID (--patch FILE | --series DIR | --none) [--baseline]\n"
	"       bugbridge job show ID [--json] [--kcidb]\n"
	"       bugbridge job list [--json] [--limit N]\n"
	"       bugbridge job cancel ID\n"
	"\n"
	"Kernel test jobs.  `add` queues one and prints its id: --patch FILE is a\n"
	"single diff or an mbox of patches, --series DIR a quilt series directory\n"
	"(a `series` file naming the patches), --none the unpatched base.\n"
	"--baseline also runs the unpatched base, so the verdict says what the\n"
	"patch changed (FAIL->PASS, PASS->FAIL, FAIL->FAIL, PASS->PASS).\n"
	"`show` prints the state, stages with durations, verdict, test cases,\n"
	"failure signatures and log paths; --kcidb prints it as a KCIDB v5.3\n"
	"document.  `cancel` stops a queued or running job.\n";

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

static void hex(const unsigned char *d, char out[65])
{
	for (int i = 0; i < SHA256_LEN; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

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
	hex(d, out);
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
		   bool baseline)
{
	struct job_spec spec = { .bug_id = bug, .with_baseline = baseline };
	struct buf content = BUF_INIT, err = BUF_INIT;
	sqlite3_int64 id = 0;
	char sha[65];
	int ret = 1;

	if (db_begin(db))
		return 1;
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
	return ret;
}

/* ---- show ---- */

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

static json_object *collect_job(struct db *db, sqlite3_int64 id)
{
	static const char *const fields[] = {
		"id", "bug", "candidate", "kind", "base", "patch_count", "with_baseline",
		"state", "stage", "progress", "runner", "attempts", "verdict", "change",
		"detail", "accel", "kernel_version", "log_dir", "created_at", "started_at",
		"finished_at", "cancel", "candidate_name", "candidate_kind"
	};
	sqlite3_stmt *st = db_stmt(db, sql_cmdjob_get);
	json_object *job, *arr;
	double now = now_real();

	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return NULL;
	}
	job = json_object_new_object();
	for (int i = 0; i < (int)(sizeof(fields) / sizeof(*fields)); i++) {
		int type = sqlite3_column_type(st, i);
		json_object_object_add(job, fields[i], type == SQLITE_INTEGER ? int_or_null(st, i)
						       : str_or_null(st, i));
	}
	sqlite3_reset(st);

	arr = json_object_new_array();
	st = db_stmt(db, sql_cmdjob_stages);
	sqlite3_bind_int64(st, 1, id);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		json_object *s = json_object_new_object();
		double start = sqlite3_column_double(st, 3);
		bool running = sqlite3_column_type(st, 4) == SQLITE_NULL;
		double end = running ? now : sqlite3_column_double(st, 4);
		json_object_object_add(s, "attempt", json_object_new_int(sqlite3_column_int(st, 0)));
		json_object_object_add(s, "variant", str_or_null(st, 1));
		json_object_object_add(s, "stage", str_or_null(st, 2));
		json_object_object_add(s, "started_at", json_object_new_double(start));
		json_object_object_add(s, "finished_at", running ? NULL :
				       json_object_new_double(end));
		json_object_object_add(s, "seconds", json_object_new_double(
					       (long)((end - start) * 10 + 0.5) / 10.0));
		json_object_object_add(s, "status", str_or_null(st, 5));
		json_object_object_add(s, "detail", str_or_null(st, 6));
		json_object_array_add(arr, s);
	}
	if (st)
		sqlite3_reset(st);
	json_object_object_add(job, "stages", arr);

	arr = json_object_new_array();
	st = db_stmt(db, sql_cmdjob_tests);
	sqlite3_bind_int64(st, 1, id);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		json_object *t = json_object_new_object();
		json_object_object_add(t, "variant", str_or_null(st, 0));
		json_object_object_add(t, "name", str_or_null(st, 1));
		json_object_object_add(t, "status", str_or_null(st, 2));
		json_object_object_add(t, "runs", json_object_new_int(sqlite3_column_int(st, 3)));
		json_object_object_add(t, "failures",
				       json_object_new_int(sqlite3_column_int(st, 4)));
		json_object_object_add(t, "diagnostics", str_or_null(st, 5));
		json_object_object_add(t, "change", *db_col_text(st, 6) ? str_or_null(st, 6) : NULL);
		json_object_array_add(arr, t);
	}
	if (st)
		sqlite3_reset(st);
	json_object_object_add(job, "tests", arr);

	arr = json_object_new_array();
	st = db_stmt(db, sql_cmdjob_sigs);
	sqlite3_bind_int64(st, 1, id);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		json_object *s = json_object_new_object();
		json_object_object_add(s, "variant", str_or_null(st, 0));
		json_object_object_add(s, "kind", str_or_null(st, 1));
		json_object_object_add(s, "title", str_or_null(st, 2));
		json_object_object_add(s, "frames", str_or_null(st, 3));
		json_object_object_add(s, "hash", str_or_null(st, 4));
		json_object_array_add(arr, s);
	}
	if (st)
		sqlite3_reset(st);
	json_object_object_add(job, "signatures", arr);
	return job;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

static long long jint(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	return json_object_get_int64(v);
}

static void print_indented(const char *text)
{
	for (const char *p = text; p && *p; ) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		printf("  %.*s\n", len, p);
		p = nl ? nl + 1 : p + len;
	}
}

static void print_job(json_object *job)
{
	json_object *arr;
	const char *verdict = jstr(job, "verdict"), *change = jstr(job, "change");

	printf("job %lld: %s", jint(job, "id"), jstr(job, "state"));
	if (verdict)
		printf(", verdict %s", verdict);
	if (change)
		printf(" (%s)", change);
	putchar('\n');
	printf("bug %lld  base %s%s%s%s  kind %s  attempts %lld\n", jint(job, "bug"),
	       jstr(job, "base"), jstr(job, "kernel_version") ? " (" : "",
	       jstr(job, "kernel_version") ? jstr(job, "kernel_version") : "",
	       jstr(job, "kernel_version") ? ")" : "", jstr(job, "kind"), jint(job, "attempts"));
	if (jint(job, "candidate"))
		printf("patch: candidate %lld, %s '%s'%s%s\n", jint(job, "candidate"),
		       jstr(job, "candidate_kind"), jstr(job, "candidate_name"),
		       jint(job, "patch_count") ? ", first patches: " : "",
		       jint(job, "patch_count") ? jstr(job, "patch_count") : "");
	else
		printf("patch: none (the unpatched base)\n");
	printf("baseline: %s\n", jint(job, "with_baseline") ? "yes" : "no");
	if (jstr(job, "accel"))
		printf("accel: %s\n", jstr(job, "accel"));
	if (!strcmp(jstr(job, "state"), "running") || !strcmp(jstr(job, "state"), "queued"))
		printf("progress: %s\n", jstr(job, "progress") ? jstr(job, "progress") : "");
	if (jstr(job, "detail")) {
		printf("detail:\n");
		print_indented(jstr(job, "detail"));
	}
	json_object_object_get_ex(job, "stages", &arr);
	if (json_object_array_length(arr))
		printf("stages:\n");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *s = json_object_array_get_idx(arr, i);
		json_object *sec;
		json_object_object_get_ex(s, "seconds", &sec);
		printf("  #%lld %-8s %-9s %-7s %7.1f s%s%s\n", jint(s, "attempt"),
		       jstr(s, "variant"), jstr(s, "stage"), jstr(s, "status"),
		       json_object_get_double(sec), *jstr(s, "detail") ? "  " : "",
		       jstr(s, "detail"));
	}
	json_object_object_get_ex(job, "tests", &arr);
	if (json_object_array_length(arr))
		printf("tests:\n");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *t = json_object_array_get_idx(arr, i);
		long long runs = jint(t, "runs"), fails = jint(t, "failures");
		char counts[64];
		if (fails)
			snprintf(counts, sizeof(counts), "failed %lld/%lld%s", fails, runs,
				 fails < runs ? ": flaky" : "");
		else
			snprintf(counts, sizeof(counts), "%s", !strcmp(jstr(t, "status"), "skip")
				 ? "skipped" : "passed");
		printf("  %-8s %-32s %-5s %-20s %s\n", jstr(t, "variant"), jstr(t, "name"),
		       jstr(t, "status"), counts, jstr(t, "change") ? jstr(t, "change") : "");
		if (fails && jstr(t, "diagnostics") && *jstr(t, "diagnostics")) {
			const char *d = jstr(t, "diagnostics"), *nl = strchr(d, '\n');
			printf("      %.*s\n", nl ? (int)(nl - d) : (int)strlen(d), d);
		}
	}
	json_object_object_get_ex(job, "signatures", &arr);
	if (json_object_array_length(arr))
		printf("signatures:\n");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *s = json_object_array_get_idx(arr, i);
		printf("  %-8s %-7s %.12s  %s\n", jstr(s, "variant"), jstr(s, "kind"),
		       jstr(s, "hash"), jstr(s, "title"));
	}
	if (jstr(job, "log_dir"))
		printf("logs: %s\n", jstr(job, "log_dir"));
}

static int job_show(struct db *db, sqlite3_int64 id, bool json, bool kcidb)
{
	json_object *job;

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
	job = collect_job(db, id);
	if (!job) {
		fprintf(stderr, "bugbridge job: no job %lld\n", (long long)id);
		return 1;
	}
	if (json)
		printf("%s\n", json_object_to_json_string_ext(job, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		print_job(job);
	json_object_put(job);
	return 0;
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
			json_object_object_add(j, "bug", int_or_null(st, 1));
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

/* ---- dispatch ---- */

static int job_main(struct db *db, const char *sub, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bug", required_argument, NULL, 'b' },
		{ "patch", required_argument, NULL, 'p' },
		{ "series", required_argument, NULL, 's' },
		{ "none", no_argument, NULL, 'n' },
		{ "baseline", no_argument, NULL, 'B' },
		{ "json", no_argument, NULL, 'j' },
		{ "kcidb", no_argument, NULL, 'k' },
		{ "limit", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	const char *patch = NULL, *series = NULL;
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
		return job_add(db, bug, patch, series, baseline);
	}
	if (!strcmp(sub, "list"))
		return job_list(db, json, limit);
	if (optind + 1 != argc || parse_id(argv[optind], &id))
		app_usage_error("bugbridge job", "a job id is needed");
	if (!strcmp(sub, "show"))
		return job_show(db, id, json, kcidb);
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
	app_usage_error("bugbridge job", "unknown subcommand (add, show, list, cancel)");
}

int cmd_job(int argc, char **argv)
{
	struct buf err = BUF_INIT;
	struct db db;
	int ret;

	if (cmd_wants_help(argc, argv, usage))
		return 0;
	if (argc < 2)
		app_usage_error("bugbridge job", "a subcommand is needed (add, show, list, cancel)");
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
