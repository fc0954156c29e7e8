/*
 * kcidb: export a job as a KCIDB document, and check one.  See kcidb.h.
 *
 * The document is built from the job's record (job_record.h).  The
 * variants a job ran are read from its stages and results: a variant
 * with any job_stages or test_results row ran.  Build status comes from
 * the build stage of that variant when there is one, else from the verdict
 * (build-failed is the patched build's fault, never the baseline's).  An
 * untested job's kernel could not be built with the patch's code: its
 * build is SKIP when it never started (the configuration cannot have the
 * code) and its boot SKIP ("the configuration didn't support it", in
 * KCIDB's words), never a PASS or a FAIL.
 */
#include "kcidb.h"
#include "xalloc.h"
#include "config.h"
#include "job_record.h"
#include "sha256.h"

#include <ctype.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
static void patchset_hash(const struct job_record *j, char hex[SHA256_HEX_LEN])
{
	char one[SHA256_HEX_LEN];

	sha256_hex(j->cand.content, j->cand.content_len, one);
	one[SHA256_HEX_LEN - 1] = '\n';	/* 64 digits and a newline, hashed */
	sha256_hex(one, SHA256_HEX_LEN, hex);
}

static bool is_patched(const struct job_record *j, const char *variant)
{
	return !strcmp(variant, "patched") && j->candidate_id;
}

static bool verdict_is(const struct job_record *j, const char *verdict)
{
	return !strcmp(job_str(j->verdict), verdict);
}

/* The last run of stage in variant; NULL if it never ran. */
static const struct job_record_stage *stage_of(const struct job_record *j, const char *variant,
					       const char *stage)
{
	for (int i = j->nstages - 1; i >= 0; i--)
		if (!strcmp(j->stages[i].variant, variant) && !strcmp(j->stages[i].stage, stage))
			return &j->stages[i];
	return NULL;
}

static json_object *checkout(const struct job_record *j, const char *variant, const char *id)
{
	json_object *o = json_object_new_object();
	bool patched = is_patched(j, variant);
	struct buf comment = BUF_INIT;

	put_str(o, "id", id);
	put_str(o, "origin", KCIDB_ORIGIN);
	put_str(o, "tree_name", j->base);
	if (j->kernel_version && *j->kernel_version)
		put_str(o, "git_commit_name", j->kernel_version);
	if (patched && j->cand.content_len) {
		char hex[SHA256_HEX_LEN];

		patchset_hash(j, hex);
		put_str(o, "patchset_hash", hex);
	} else if (!patched) {
		put_str(o, "patchset_hash", "");
	}
	buf_addf(&comment, "%s%s%s", j->base, patched ? " + " : " (unpatched baseline)",
		 patched ? j->cand.name : "");
	put_str(o, "comment", comment.ptr);
	buf_release(&comment);
	json_object_object_add(o, "start_time",
			       iso_time(j->started_at ? j->started_at : j->created_at));
	json_object_object_add(o, "valid", json_object_new_boolean(
		!(patched && verdict_is(j, "apply-failed"))));
	return o;
}

static const char *build_status(const struct job_record *j, const char *variant,
				const struct job_record_stage *b)
{
	bool patched = is_patched(j, variant);

	if (b && !strcmp(b->status, "ok"))
		return "PASS";
	if (b && !strcmp(b->status, "failed"))
		return patched && fault_no_result(j->fault) ? "ERROR" : "FAIL";
	if (patched && verdict_is(j, "build-failed"))
		return "FAIL";
	if (fault_no_result(j->fault))
		return "ERROR";
	if (patched && verdict_is(j, "apply-failed"))
		return "MISS";
	if (patched && job_record_untested(j))
		return "SKIP";		/* no build stage: the configuration cannot build it */
	return "PASS";		/* the results exist, so the kernel was built */
}

static json_object *build(const struct job_record *j, const char *variant, const char *id,
			  const char **status)
{
	json_object *o = json_object_new_object();
	const struct job_record_stage *b = stage_of(j, variant, "build");
	double end;

	*status = build_status(j, variant, b);
	put_str(o, "id", id);
	put_str(o, "origin", KCIDB_ORIGIN);
	put_str(o, "checkout_id", id);
	put_str(o, "architecture", "x86_64");
	put_str(o, "config_name", cfg_str("runner.config_variant"));
	put_str(o, "status", *status);
	if (b) {
		end = b->open ? b->started_at : b->finished_at;
		json_object_object_add(o, "start_time", iso_time(b->started_at));
		json_object_object_add(o, "duration", json_object_new_double(end - b->started_at));
	}
	return o;
}

static json_object *new_test(const char *build_id, const char *name, const char *status,
			     const struct job_record *j)
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
	buf_addf(&envc, "QEMU x86_64, %s",
		 j->accel && *j->accel ? j->accel : "unknown accelerator");
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

static const char *boot_status(const struct job_record *j, const char *variant)
{
	if (!is_patched(j, variant))
		return "PASS";	/* the baseline's own failure shows in its tests */
	if (verdict_is(j, "panic"))
		return "FAIL";
	if (verdict_is(j, "boot-timeout"))
		return "FAIL";
	if (fault_no_result(j->fault))
		return "ERROR";
	if (job_record_untested(j))
		return "SKIP";		/* never booted: nothing of the patch's code to test */
	return "PASS";
}

static void add_tests(const struct job_record *j, const char *variant, const char *build_id,
		      json_object *tests)
{
	json_object_array_add(tests, new_test(build_id, "boot", boot_status(j, variant), j));
	for (int i = 0; i < j->ntests; i++) {
		const struct job_record_test *r = &j->tests[i];
		json_object *t, *misc;

		if (strcmp(r->variant, variant))
			continue;
		t = new_test(build_id, r->name, test_status(r->status), j);
		misc = json_object_new_object();
		json_object_object_add(misc, "runs", json_object_new_int(r->runs));
		json_object_object_add(misc, "failures", json_object_new_int(r->failures));
		if (!strcmp(r->status, "flaky"))
			json_object_object_add(misc, "flaky", json_object_new_boolean(1));
		json_object_object_add(t, "misc", misc);
		json_object_array_add(tests, t);
	}
}

static void add_variant(const char ***v, int *n, size_t *alloc, const char *variant)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*v)[i], variant))
			return;
	XGROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = variant;
}

static int cmp_desc(const void *a, const void *b)
{
	return strcmp(*(const char *const *)b, *(const char *const *)a);
}

/*
 * The variants with stage or test rows, "patched" before "baseline"; a job
 * that ended before any stage has the patched checkout alone.
 */
static int job_variants(const struct job_record *j, const char ***v)
{
	size_t alloc = 0;
	int n = 0;

	*v = NULL;
	for (int i = 0; i < j->nstages; i++)
		add_variant(v, &n, &alloc, j->stages[i].variant);
	for (int i = 0; i < j->ntests; i++)
		add_variant(v, &n, &alloc, j->tests[i].variant);
	if (!n)
		add_variant(v, &n, &alloc, "patched");
	qsort(*v, n, sizeof(**v), cmp_desc);
	return n;
}

static void add_variants(const struct job_record *j, json_object *checkouts,
			 json_object *builds, json_object *tests)
{
	const char **variants;
	int n = job_variants(j, &variants);

	for (int i = 0; i < n; i++) {
		struct buf id = BUF_INIT;
		const char *status;

		buf_addf(&id, "%s:job%lld-", KCIDB_ORIGIN, (long long)j->id);
		path_part(&id, variants[i]);
		json_object_array_add(checkouts, checkout(j, variants[i], id.ptr));
		json_object_array_add(builds, build(j, variants[i], id.ptr, &status));
		if (strcmp(status, "MISS") && strcmp(status, "FAIL"))
			add_tests(j, variants[i], id.ptr, tests);
		buf_release(&id);
	}
	free(variants);
}

static json_object *document(const struct job_record *j)
{
	json_object *doc = json_object_new_object();
	json_object *version = json_object_new_object();
	json_object *checkouts = json_object_new_array();
	json_object *builds = json_object_new_array();
	json_object *tests = json_object_new_array();

	json_object_object_add(version, "major", json_object_new_int(KCIDB_MAJOR));
	json_object_object_add(version, "minor", json_object_new_int(KCIDB_MINOR));
	json_object_object_add(doc, "version", version);
	json_object_object_add(doc, "checkouts", checkouts);
	json_object_object_add(doc, "builds", builds);
	json_object_object_add(doc, "tests", tests);
	add_variants(j, checkouts, builds, tests);
	return doc;
}

int kcidb_export(struct db *db, sqlite3_int64 job_id, struct buf *out)
{
	struct job_record j = JOB_RECORD_INIT;
	json_object *doc = NULL;
	struct buf err = BUF_INIT;
	size_t start = out->len;
	int ret = -1, rc;

	rc = job_record_load(db, job_id, JOB_LOAD_CONTENT | JOB_LOAD_STAGES | JOB_LOAD_TESTS, &j);
	if (rc <= 0) {
		buf_reset(out);
		if (rc < 0)
			buf_addf(out, "cannot read job %lld: %s", (long long)job_id, db_errmsg(db));
		else
			buf_addf(out, "no job %lld", (long long)job_id);
		goto out;
	}
	if (strcmp(j.state, "done")) {
		buf_reset(out);
		buf_addf(out, "job %lld is %s, not finished", (long long)job_id, j.state);
		goto out;
	}
	doc = document(&j);
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
	job_record_release(&j);
	buf_release(&err);
	return ret;
}
