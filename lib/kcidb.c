/*
 * kcidb: export a job as a KCIDB document, and check one.  See kcidb.h.
 *
 * The variants a job ran are read from its stages and results: a variant
 * with any job_stages or test_results row ran.  Build status comes from
 * the build stage of that variant when there is one, else from the verdict
 * (build-failed is the patched build's fault, never the baseline's).
 */
#include "kcidb.h"
#include "xalloc.h"
#include "config.h"
#include "sha256.h"

#include <ctype.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct kc_job {
	sqlite3_int64 id;
	char *state, *verdict, *base, *version, *accel, *cand_name, *cand_kind;
	unsigned char *content;
	int content_len;
	bool has_candidate;
	long long created, started, finished;
};

DB_SQL(sql_kc_job,
       "SELECT j.state, IFNULL(j.verdict, ''), j.base, IFNULL(j.kernel_version, ''),"
       " IFNULL(j.accel, ''), IFNULL(c.name, ''), IFNULL(c.kind, ''), c.content,"
       " j.candidate_id IS NOT NULL, j.created_at, IFNULL(j.started_at, 0),"
       " IFNULL(j.finished_at, 0)"
       " FROM jobs j LEFT JOIN candidates c ON c.id = j.candidate_id WHERE j.id = ?");
DB_SQL(sql_kc_variants,
       "SELECT variant FROM job_stages WHERE job_id = ?1 UNION"
       " SELECT variant FROM test_results WHERE job_id = ?1 ORDER BY 1 DESC");
DB_SQL(sql_kc_stage,
       "SELECT status, started_at, IFNULL(finished_at, started_at) FROM job_stages"
       " WHERE job_id = ? AND variant = ? AND stage = ? ORDER BY id DESC LIMIT 1");
DB_SQL(sql_kc_tests,
       "SELECT name, status, runs, failures FROM test_results WHERE job_id = ? AND variant = ?"
       " ORDER BY name");

static void kc_release(struct kc_job *j)
{
	free(j->state);
	free(j->verdict);
	free(j->base);
	free(j->version);
	free(j->accel);
	free(j->cand_name);
	free(j->cand_kind);
	free(j->content);
}

static int kc_load(struct db *db, sqlite3_int64 id, struct kc_job *j)
{
	sqlite3_stmt *st = db_stmt(db, sql_kc_job);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		j->id = id;
		j->state = xstrdup(db_col_text(st, 0));
		j->verdict = xstrdup(db_col_text(st, 1));
		j->base = xstrdup(db_col_text(st, 2));
		j->version = xstrdup(db_col_text(st, 3));
		j->accel = xstrdup(db_col_text(st, 4));
		j->cand_name = xstrdup(db_col_text(st, 5));
		j->cand_kind = xstrdup(db_col_text(st, 6));
		j->content_len = sqlite3_column_bytes(st, 7);
		j->content = xmalloc(j->content_len + 1);
		if (j->content_len)
			memcpy(j->content, sqlite3_column_blob(st, 7), j->content_len);
		j->has_candidate = sqlite3_column_int(st, 8);
		j->created = sqlite3_column_int64(st, 9);
		j->started = sqlite3_column_int64(st, 10);
		j->finished = sqlite3_column_int64(st, 11);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

static json_object *iso_time(double t)
{
	time_t secs = (time_t)t;
	struct tm tm;
	char s[40];

	gmtime_r(&secs, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S+00:00", &tm);
	return json_object_new_string(s);
}

static void put_str(json_object *o, const char *key, const char *value)
{
	json_object_object_add(o, key, json_object_new_string(value));
}

/* A test path component: KCIDB paths are dot-separated, so no dots inside. */
static void path_part(struct buf *out, const char *name)
{
	for (; *name; name++)
		buf_addch(out, isalnum((unsigned char)*name) || *name == '-' || *name == '_' ?
			  *name : '_');
}

/* sha256 over the newline-terminated sha256 of each patch (one file here). */
static void patchset_hash(const struct kc_job *j, char hex[SHA256_HEX_LEN])
{
	char one[SHA256_HEX_LEN];

	sha256_hex(j->content, j->content_len, one);
	one[SHA256_HEX_LEN - 1] = '\n';	/* 64 digits and a newline, hashed */
	sha256_hex(one, SHA256_HEX_LEN, hex);
}

struct kc_stage {
	bool found;
	char status[16];
	double start, end;
};

static void stage_of(struct db *db, sqlite3_int64 id, const char *variant, const char *stage,
		     struct kc_stage *s)
{
	sqlite3_stmt *st = db_stmt(db, sql_kc_stage);

	memset(s, 0, sizeof(*s));
	if (!st)
		return;
	sqlite3_bind_int64(st, 1, id);
	db_bind_text(st, 2, variant);
	db_bind_text(st, 3, stage);
	if (sqlite3_step(st) == SQLITE_ROW) {
		s->found = true;
		snprintf(s->status, sizeof(s->status), "%s", db_col_text(st, 0));
		s->start = sqlite3_column_double(st, 1);
		s->end = sqlite3_column_double(st, 2);
	}
	sqlite3_reset(st);
}

static json_object *checkout(const struct kc_job *j, const char *variant, const char *id)
{
	json_object *o = json_object_new_object();
	bool patched = !strcmp(variant, "patched") && j->has_candidate;
	struct buf comment = BUF_INIT;

	put_str(o, "id", id);
	put_str(o, "origin", KCIDB_ORIGIN);
	put_str(o, "tree_name", j->base);
	if (j->version[0])
		put_str(o, "git_commit_name", j->version);
	if (patched && j->content_len) {
		char hex[SHA256_HEX_LEN];

		patchset_hash(j, hex);
		put_str(o, "patchset_hash", hex);
	} else if (!patched) {
		put_str(o, "patchset_hash", "");
	}
	buf_addf(&comment, "%s%s%s", j->base, patched ? " + " : " (unpatched baseline)",
		 patched ? j->cand_name : "");
	put_str(o, "comment", comment.ptr);
	buf_release(&comment);
	json_object_object_add(o, "start_time", iso_time(j->started ? j->started : j->created));
	json_object_object_add(o, "valid", json_object_new_boolean(
		!(patched && !strcmp(j->verdict, "apply-failed"))));
	return o;
}

static const char *build_status(struct db *db, const struct kc_job *j, const char *variant,
				struct kc_stage *b)
{
	bool patched = !strcmp(variant, "patched") && j->has_candidate;

	stage_of(db, j->id, variant, "build", b);
	if (b->found && !strcmp(b->status, "ok"))
		return "PASS";
	if (b->found && !strcmp(b->status, "failed"))
		return patched && !strcmp(j->verdict, "infra-error") ? "ERROR" : "FAIL";
	if (patched && !strcmp(j->verdict, "build-failed"))
		return "FAIL";
	if (!strcmp(j->verdict, "infra-error"))
		return "ERROR";
	if (patched && !strcmp(j->verdict, "apply-failed"))
		return "MISS";
	return "PASS";		/* the results exist, so the kernel was built */
}

static json_object *build(struct db *db, const struct kc_job *j, const char *variant,
			  const char *id, const char **status)
{
	json_object *o = json_object_new_object();
	struct kc_stage b;

	*status = build_status(db, j, variant, &b);
	put_str(o, "id", id);
	put_str(o, "origin", KCIDB_ORIGIN);
	put_str(o, "checkout_id", id);
	put_str(o, "architecture", "x86_64");
	put_str(o, "config_name", cfg_str("runner.config_variant"));
	put_str(o, "status", *status);
	if (b.found) {
		json_object_object_add(o, "start_time", iso_time(b.start));
		json_object_object_add(o, "duration", json_object_new_double(b.end - b.start));
	}
	return o;
}

static json_object *new_test(const char *build_id, const char *name, const char *status,
			     const struct kc_job *j)
{
	json_object *o = json_object_new_object();
	json_object *env = json_object_new_object();
	struct buf id = BUF_INIT, path = BUF_INIT, envc = BUF_INIT;

	buf_addf(&id, "%s-", build_id);
	path_part(&id, name);
	buf_addstr(&path, strcmp(name, "boot") ? "scsi." : "");
	path_part(&path, name);
	put_str(o, "id", id.ptr);
	put_str(o, "origin", KCIDB_ORIGIN);
	put_str(o, "build_id", build_id);
	put_str(o, "path", path.ptr);
	put_str(o, "status", status);
	buf_addf(&envc, "QEMU x86_64, %s", j->accel[0] ? j->accel : "unknown accelerator");
	put_str(env, "comment", envc.ptr);
	json_object_object_add(o, "environment", env);
	buf_release(&id);
	buf_release(&path);
	buf_release(&envc);
	return o;
}

static const char *test_status(const char *s)
{
	if (!strcmp(s, "pass") || !strcmp(s, "flaky"))
		return "PASS";
	if (!strcmp(s, "fail"))
		return "FAIL";
	return "SKIP";
}

static const char *boot_status(const struct kc_job *j, const char *variant)
{
	bool patched = !strcmp(variant, "patched") && j->has_candidate;

	if (!patched)
		return "PASS";	/* the baseline's own failure shows in its tests */
	if (!strcmp(j->verdict, "panic"))
		return "FAIL";
	if (!strcmp(j->verdict, "boot-timeout"))
		return "FAIL";
	if (!strcmp(j->verdict, "infra-error"))
		return "ERROR";
	return "PASS";
}

static int add_tests(struct db *db, const struct kc_job *j, const char *variant,
		     const char *build_id, json_object *tests)
{
	sqlite3_stmt *st = db_stmt(db, sql_kc_tests);

	if (!st)
		return -1;
	json_object_array_add(tests, new_test(build_id, "boot", boot_status(j, variant), j));
	sqlite3_bind_int64(st, 1, j->id);
	db_bind_text(st, 2, variant);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *status = db_col_text(st, 1);
		json_object *t = new_test(build_id, db_col_text(st, 0), test_status(status), j);
		json_object *misc = json_object_new_object();

		json_object_object_add(misc, "runs", json_object_new_int(sqlite3_column_int(st, 2)));
		json_object_object_add(misc, "failures",
				       json_object_new_int(sqlite3_column_int(st, 3)));
		if (!strcmp(status, "flaky"))
			json_object_object_add(misc, "flaky", json_object_new_boolean(1));
		json_object_object_add(t, "misc", misc);
		json_object_array_add(tests, t);
	}
	sqlite3_reset(st);
	return 0;
}

static int add_variants(struct db *db, const struct kc_job *j, json_object *checkouts,
			json_object *builds, json_object *tests)
{
	sqlite3_stmt *st = db_stmt(db, sql_kc_variants);
	char **variants = NULL;
	int n = 0, ret = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, j->id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		variants = xrealloc(variants, (n + 1) * sizeof(*variants));
		variants[n++] = xstrdup(db_col_text(st, 0));
	}
	sqlite3_reset(st);
	if (!n) {
		/* a job that ended before any stage: the checkout alone */
		variants = xmalloc(sizeof(*variants));
		variants[n++] = xstrdup("patched");
	}
	for (int i = 0; i < n; i++) {
		struct buf id = BUF_INIT;
		const char *status;

		buf_addf(&id, "%s:job%lld-", KCIDB_ORIGIN, (long long)j->id);
		path_part(&id, variants[i]);
		json_object_array_add(checkouts, checkout(j, variants[i], id.ptr));
		json_object_array_add(builds, build(db, j, variants[i], id.ptr, &status));
		if (strcmp(status, "MISS") && strcmp(status, "FAIL") && add_tests(db, j, variants[i],
									      id.ptr, tests))
			ret = -1;
		buf_release(&id);
		free(variants[i]);
	}
	free(variants);
	return ret;
}

int kcidb_export(struct db *db, sqlite3_int64 job_id, struct buf *out)
{
	struct kc_job j = { 0 };
	json_object *doc = NULL, *version, *checkouts, *builds, *tests;
	struct buf err = BUF_INIT;
	size_t start = out->len;
	int ret = -1;

	if (kc_load(db, job_id, &j)) {
		buf_reset(out);
		buf_addf(out, "no job %lld", (long long)job_id);
		goto out;
	}
	if (strcmp(j.state, "done")) {
		buf_reset(out);
		buf_addf(out, "job %lld is %s, not finished", (long long)job_id, j.state);
		goto out;
	}
	doc = json_object_new_object();
	version = json_object_new_object();
	json_object_object_add(version, "major", json_object_new_int(KCIDB_MAJOR));
	json_object_object_add(version, "minor", json_object_new_int(KCIDB_MINOR));
	json_object_object_add(doc, "version", version);
	checkouts = json_object_new_array();
	builds = json_object_new_array();
	tests = json_object_new_array();
	json_object_object_add(doc, "checkouts", checkouts);
	json_object_object_add(doc, "builds", builds);
	json_object_object_add(doc, "tests", tests);
	if (add_variants(db, &j, checkouts, builds, tests)) {
		buf_reset(out);
		buf_addf(out, "cannot read job %lld: %s", (long long)job_id, db_errmsg(db));
		goto out;
	}
	buf_addstr(out, json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
	if (kcidb_validate(out->ptr + start, &err)) {
		buf_reset(out);
		buf_addf(out, "job %lld does not make a valid KCIDB document: %s",
			 (long long)job_id, err.ptr);
		goto out;
	}
	ret = 0;
out:
	json_object_put(doc);
	kc_release(&j);
	buf_release(&err);
	return ret;
}
