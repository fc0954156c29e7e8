/*
 * Unit tests for lib/kcidb: a finished job with a baseline exported as a
 * KCIDB document (checkouts, builds, tests with KCIDB status values) that
 * passes our schema check, and the check refusing what the published
 * schema refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <json.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "db.h"
#include "kcidb.h"

static void exec(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("sql failed: %s: %s", msg, sql);
}

static json_object *find(json_object *arr, const char *id)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i), *v;

		if (json_object_object_get_ex(o, "id", &v) &&
		    !strcmp(json_object_get_string(v), id))
			return o;
	}
	return NULL;
}

static const char *field(json_object *o, const char *key)
{
	json_object *v;

	assert_non_null(o);
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return json_object_get_string(v);
}

static void test_export(void **state)
{
	struct buf err = BUF_INIT, out = BUF_INIT;
	struct db db;
	json_object *doc, *co, *b, *t;
	int applied;

	(void)state;
	assert_int_equal(db_open(&db, ":memory:", &err), 0);
	assert_int_equal(db_migrate(&db, &applied, &err), 0);
	exec(&db, "INSERT INTO candidates (id, bug_id, source, kind, name, sha256, content)"
		  " VALUES (1, 9370, 'manual', 'patch', 'sr-fix.patch', 'abc', 'diff text');"
		  "INSERT INTO jobs (id, bug_id, candidate_id, with_baseline, state, verdict,"
		  " change, accel, kernel_version, started_at, finished_at)"
		  " VALUES (42, 9370, 1, 1, 'done', 'pass', 'FAIL->PASS', 'kvm', '6.1.158',"
		  " 1796256000, 1796256432);"
		  "INSERT INTO job_stages (job_id, variant, stage, started_at, finished_at, status)"
		  " VALUES (42, 'patched', 'build', 1796256010.5, 1796256310.5, 'ok'),"
		  " (42, 'baseline', 'build', 1796256010, 1796256300, 'ok');"
		  "INSERT INTO test_results (job_id, variant, name, status, runs, failures) VALUES"
		  " (42, 'baseline', 'sr-capacity', 'fail', 3, 3),"
		  " (42, 'patched', 'sr-capacity', 'pass', 1, 0),"
		  " (42, 'patched', 'sd.trim', 'skip', 1, 0),"
		  " (42, 'patched', 'sd-flush', 'flaky', 3, 1);"
		  "INSERT INTO jobs (id, state) VALUES (43, 'queued');");

	assert_int_equal(kcidb_export(&db, 42, &out), 0);
	doc = json_tokener_parse(out.ptr);
	assert_non_null(doc);
	assert_int_equal(kcidb_validate(out.ptr, &err), 0);

	co = json_object_object_get(doc, "checkouts");
	b = json_object_object_get(doc, "builds");
	t = json_object_object_get(doc, "tests");
	assert_int_equal(json_object_array_length(co), 2);
	assert_int_equal(json_object_array_length(b), 2);
	assert_string_equal(field(find(co, "bugbridge:job42-patched"), "tree_name"),
			    "linux-source-6.1");
	/* the schema's formula: sha256sum *.patch | cut -c-64 | sha256sum | cut -c-64 */
	assert_string_equal(field(find(co, "bugbridge:job42-patched"), "patchset_hash"),
			    "13a5ccce48f814715b52ac719f1401655fa468e65c68ddf122427270e7a20955");
	assert_string_equal(field(find(co, "bugbridge:job42-baseline"), "patchset_hash"), "");
	assert_string_equal(field(find(b, "bugbridge:job42-patched"), "status"), "PASS");
	assert_string_equal(field(find(b, "bugbridge:job42-patched"), "checkout_id"),
			    "bugbridge:job42-patched");
	assert_string_equal(field(find(t, "bugbridge:job42-baseline-sr-capacity"), "status"),
			    "FAIL");
	assert_string_equal(field(find(t, "bugbridge:job42-patched-sr-capacity"), "status"),
			    "PASS");
	assert_string_equal(field(find(t, "bugbridge:job42-patched-sr-capacity"), "path"),
			    "scsi.sr-capacity");
	/* a dot inside a test name would make two path levels */
	assert_string_equal(field(find(t, "bugbridge:job42-patched-sd_trim"), "path"),
			    "scsi.sd_trim");
	assert_string_equal(field(find(t, "bugbridge:job42-patched-sd_trim"), "status"), "SKIP");
	assert_string_equal(field(find(t, "bugbridge:job42-patched-boot"), "status"), "PASS");
	json_object_put(doc);

	/* a job that has not finished, or does not exist, is refused */
	buf_reset(&out);
	assert_int_equal(kcidb_export(&db, 43, &out), -1);
	assert_non_null(strstr(out.ptr, "not finished"));
	assert_int_equal(kcidb_export(&db, 99, &out), -1);

	/* an infra error is the harness's: ERROR, not FAIL */
	exec(&db, "INSERT INTO jobs (id, candidate_id, state, verdict) VALUES"
		  " (44, 1, 'done', 'infra-error');");
	buf_reset(&out);
	assert_int_equal(kcidb_export(&db, 44, &out), 0);
	doc = json_tokener_parse(out.ptr);
	assert_string_equal(field(find(json_object_object_get(doc, "builds"),
				       "bugbridge:job44-patched"), "status"), "ERROR");
	json_object_put(doc);
	db_close(&db);
	buf_release(&err);
	buf_release(&out);
}

static void test_validate_refuses(void **state)
{
	struct buf err = BUF_INIT;
	static const char *const bad[] = {
		"[]",
		"{\"checkouts\":[]}",
		"{\"version\":{\"major\":5,\"minor\":3},\"checkouts\":[{\"id\":\"bugbridge:1\"}]}",
		"{\"version\":{\"major\":5,\"minor\":3},\"checkouts\":[{\"id\":\"x\","
		"\"origin\":\"bugbridge\"}]}",
		"{\"version\":{\"major\":5,\"minor\":3},\"checkouts\":[{\"id\":\"Bad:1\","
		"\"origin\":\"Bad\"}]}",
		"{\"version\":{\"major\":5,\"minor\":3},\"builds\":[{\"id\":\"o:1\",\"origin\":\"o\","
		"\"checkout_id\":\"o:missing\"}]}",
		"{\"version\":{\"major\":5,\"minor\":3},\"checkouts\":[{\"id\":\"o:1\",\"origin\":\"o\"}],"
		"\"builds\":[{\"id\":\"o:1\",\"origin\":\"o\",\"checkout_id\":\"o:1\",\"status\":\"OK\"}]}",
		"{\"version\":{\"major\":5,\"minor\":3},\"checkouts\":[{\"id\":\"o:1\",\"origin\":\"o\","
		"\"colour\":\"red\"}]}",
		"{\"version\":{\"major\":5,\"minor\":3},\"checkouts\":[{\"id\":\"o:1\",\"origin\":\"o\","
		"\"patchset_hash\":\"abc\"}]}",
		"{\"version\":{\"major\":4,\"minor\":0}}",
		"{\"version\":{\"major\":5,\"minor\":3},\"tests\":[{\"id\":\"o:t\",\"origin\":\"o\"}]}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (kcidb_validate(bad[i], &err) != -1)
			fail_msg("accepted: %s", bad[i]);
		assert_true(err.len > 0);
	}
	assert_int_equal(kcidb_validate("{\"version\":{\"major\":5,\"minor\":3}}", &err), 0);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export),
		cmocka_unit_test(test_validate_refuses),
	};
	struct config c;
	int rc;

	config_init(&c);
	config_install(&c);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	config_release((struct config *)cfg);
	free((void *)cfg);
	return rc;
}
