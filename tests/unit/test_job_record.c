/*
 * Unit tests for lib/job_record, job_json and job_logs: a job loaded part
 * by part (the flags decide what is read), NULL columns kept NULL, rows in
 * their documented order, the JSON document's names, and the log listing
 * that skips symlinks and names outside the pattern.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "job_logs.h"
#include "job_record.h"

static void exec(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("sql failed: %s: %s", msg, sql);
}

static void open_db(struct db *db)
{
	struct buf err = BUF_INIT;
	int applied;

	assert_int_equal(db_open(db, ":memory:", &err), 0);
	assert_int_equal(db_migrate(db, &applied, &err), 0);
	buf_release(&err);
	exec(db, "INSERT INTO candidates (id, bug_id, source, kind, name, sha256, content,"
		 " patch_count) VALUES (7, 9370, 'manual', 'mbox', 's.mbox', 'abc', 'From x', 2);"
		 "INSERT INTO jobs (id, bug_id, candidate_id, with_baseline, state, verdict,"
		 " change, accel, created_at, started_at, finished_at, reported) VALUES"
		 " (42, 9370, 7, 1, 'done', 'fail', 'PASS->FAIL', 'kvm', 100, 110, 500, 1),"
		 " (43, NULL, NULL, 0, 'queued', NULL, NULL, NULL, 120, NULL, NULL, 0);"
		 "INSERT INTO job_stages (job_id, variant, stage, started_at, finished_at, status)"
		 " VALUES (42, 'patched', 'build', 110.5, 300, 'ok'),"
		 " (42, 'patched', 'boot', 300, NULL, 'running');"
		 "INSERT INTO test_results (job_id, variant, name, status, runs, failures, change)"
		 " VALUES (42, 'baseline', 'b', 'pass', 1, 0, NULL),"
		 " (42, 'patched', 'b', 'fail', 1, 1, 'PASS->FAIL'),"
		 " (42, 'patched', 'a', 'pass', 1, 0, 'PASS->PASS');"
		 "INSERT INTO signatures (job_id, variant, kind, title, hash) VALUES"
		 " (42, 'patched', 'oops', 'BUG: x', 'h1');");
}

static void test_load_parts(void **state)
{
	struct job_record rec = JOB_RECORD_INIT;
	struct db db;

	(void)state;
	open_db(&db);
	/* the row alone: no patch text, no stages, no results */
	assert_int_equal(job_record_load(&db, 42, 0, &rec), 1);
	assert_int_equal(rec.bug_id, 9370);
	assert_string_equal(rec.state, "done");
	assert_string_equal(rec.verdict, "fail");
	assert_null(rec.verdict_detail);
	assert_true(rec.with_baseline && rec.reported);
	assert_string_equal(rec.cand.name, "s.mbox");
	assert_int_equal(rec.cand.patch_count, 2);
	assert_null(rec.cand.content);
	assert_int_equal(rec.nstages + rec.ntests + rec.nsigs + rec.nlogs, 0);
	job_record_release(&rec);

	assert_int_equal(job_record_load(&db, 42, JOB_LOAD_CONTENT | JOB_LOAD_STAGES |
					 JOB_LOAD_TESTS | JOB_LOAD_SIGS, &rec), 1);
	assert_string_equal(rec.cand.content, "From x");
	assert_int_equal(rec.cand.content_len, 6);
	assert_int_equal(rec.nstages, 2);
	assert_false(rec.stages[0].open);
	assert_true(rec.stages[1].open);
	/* patched before baseline, then by name */
	assert_int_equal(rec.ntests, 3);
	assert_string_equal(rec.tests[0].name, "a");
	assert_string_equal(rec.tests[1].name, "b");
	assert_string_equal(rec.tests[2].variant, "baseline");
	assert_null(rec.tests[2].change);
	assert_true(job_record_ran(&rec, "patched"));
	assert_true(job_record_failed(&rec, "patched"));
	assert_true(job_record_ran(&rec, "baseline"));
	assert_false(job_record_failed(&rec, "baseline"));
	job_record_release(&rec);

	/* a job without a candidate: "" facts, NULL columns */
	assert_int_equal(job_record_load(&db, 43, JOB_LOAD_CONTENT, &rec), 1);
	assert_int_equal(rec.bug_id, 0);
	assert_string_equal(rec.cand.name, "");
	assert_string_equal(rec.cand.content, "");
	assert_null(rec.verdict);
	assert_string_equal(job_str(rec.verdict), "");
	job_record_release(&rec);

	assert_int_equal(job_record_load(&db, 99, JOB_LOAD_DOC, &rec), 0);
	assert_null(rec.kind);
	job_record_release(&rec);
	db_close(&db);
}

static const char *field(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

static void test_json(void **state)
{
	struct job_record rec = JOB_RECORD_INIT;
	struct db db;
	json_object *o;

	(void)state;
	open_db(&db);
	assert_int_equal(job_record_load(&db, 42, JOB_LOAD_DOC, &rec), 1);
	o = job_record_json(&rec);
	assert_string_equal(field(o, "bug_id"), "9370");
	assert_string_equal(field(o, "candidate_id"), "7");
	assert_null(field(o, "verdict_detail"));
	assert_null(field(o, "log_dir"));
	assert_string_equal(field(json_object_object_get(o, "candidate"), "name"), "s.mbox");
	assert_int_equal(json_object_array_length(json_object_object_get(o, "stages")), 2);
	assert_int_equal(json_object_array_length(json_object_object_get(o, "test_results")), 3);
	assert_int_equal(json_object_array_length(json_object_object_get(o, "signatures")), 1);
	assert_int_equal(json_object_array_length(json_object_object_get(o, "logs")), 0);
	json_object_put(o);
	job_record_release(&rec);

	assert_int_equal(job_record_load(&db, 43, JOB_LOAD_DOC, &rec), 1);
	o = job_record_json(&rec);
	assert_null(field(o, "bug_id"));
	assert_null(json_object_object_get(o, "candidate"));
	json_object_put(o);
	job_record_release(&rec);
	db_close(&db);
}

static void touch(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
}

static void test_logs(void **state)
{
	char dir[] = "/tmp/test_job_record.XXXXXX", link[600];
	char **names;
	int n;

	(void)state;
	assert_true(job_log_name_ok("build.log"));
	assert_true(job_log_name_ok("console-2_x.log"));
	assert_false(job_log_name_ok(".hidden.log"));
	assert_false(job_log_name_ok("a..log"));
	assert_false(job_log_name_ok("../x.log"));
	assert_false(job_log_name_ok("notes.txt"));
	assert_false(job_log_name_ok("sp ace.log"));

	assert_non_null(mkdtemp(dir));
	touch(dir, "console.log");
	touch(dir, "build.log");
	touch(dir, "notes.txt");
	snprintf(link, sizeof(link), "%s/evil.log", dir);
	assert_int_equal(symlink("/etc/passwd", link), 0);
	job_logs_list(dir, &names, &n);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "build.log");
	assert_string_equal(names[1], "console.log");
	job_logs_free(names, n);
	job_logs_list("relative/dir", &names, &n);
	assert_int_equal(n, 0);
	job_logs_free(names, n);

	unlink(link);
	snprintf(link, sizeof(link), "%s/build.log", dir);
	unlink(link);
	snprintf(link, sizeof(link), "%s/console.log", dir);
	unlink(link);
	snprintf(link, sizeof(link), "%s/notes.txt", dir);
	unlink(link);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_parts),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_logs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
