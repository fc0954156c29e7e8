/* Unit tests for lib/redact: no secret survives into a logged string. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "db.h"
#include "redact.h"

#include <stdio.h>

#define KEY "botkey0123456789abcdefghijABCDEFGHIJ0001"

static void expect(const char *in, const char *want)
{
	struct buf out = BUF_INIT;

	assert_string_equal(redact_url(&out, in), want);
	assert_null(strstr(out.ptr, KEY));
	buf_release(&out);
}

static void test_query_parameters(void **state)
{
	(void)state;
	expect("http://127.0.0.1:8091/rest/bug/9370?api_key=" KEY,
	       "http://127.0.0.1:8091/rest/bug/9370?api_key=REDACTED");
	expect("http://h/rest/bug?id=1&api_key=" KEY "&include_fields=id",
	       "http://h/rest/bug?id=1&api_key=REDACTED&include_fields=id");
	expect("http://h/rest/user?Bugzilla_api_key=" KEY "#frag",
	       "http://h/rest/user?Bugzilla_api_key=REDACTED#frag");
	expect("http://h/x?login=bot@example.com&password=" KEY,
	       "http://h/x?login=bot@example.com&password=REDACTED");
	expect("http://h/x?Bugzilla_token=" KEY, "http://h/x?Bugzilla_token=REDACTED");
	expect("http://h/x?API_KEY=" KEY, "http://h/x?API_KEY=REDACTED");
}

static void test_not_a_secret_left_alone(void **state)
{
	(void)state;
	expect("http://h/rest/bug?keywords=regression&my_api_key_count=3",
	       "http://h/rest/bug?keywords=regression&my_api_key_count=3");
	expect("no url here: 'api_key' is a word", "no url here: 'api_key' is a word");
	expect("", "");
}

static void test_inside_messages(void **state)
{
	(void)state;
	expect("GET http://h/rest/bug/1?api_key=" KEY " failed: timeout",
	       "GET http://h/rest/bug/1?api_key=REDACTED failed: timeout");
	expect("{\"api_key\": \"" KEY "\", \"comment\": \"hi\"}",
	       "{\"api_key\": \"REDACTED\", \"comment\": \"hi\"}");
	expect("{\"Bugzilla_api_key\":\"" KEY "\"}", "{\"Bugzilla_api_key\":\"REDACTED\"}");
	expect("X-BUGZILLA-API-KEY: " KEY "\r\nAccept: x",
	       "X-BUGZILLA-API-KEY: REDACTED\r\nAccept: x");
}

static void test_userinfo(void **state)
{
	(void)state;
	expect("https://bot:" KEY "@bugzilla.example.org/rest",
	       "https://bot:REDACTED@bugzilla.example.org/rest");
	expect("http://127.0.0.1:8091/rest", "http://127.0.0.1:8091/rest");
	expect("http://user@host/x", "http://user@host/x");
}

static void test_redact_buf_in_place(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	buf_addstr(&b, "tracker said no for http://h/?api_key=" KEY "&x=1");
	redact_buf(&b);
	assert_string_equal(b.ptr, "tracker said no for http://h/?api_key=REDACTED&x=1");
	buf_release(&b);
}

/* Install a config whose tracker key is set inline and whose token comes from a file. */
static void install_secrets(const char *dir)
{
	struct config c = { 0 };
	struct buf text = BUF_INIT, err = BUF_INIT, path = BUF_INIT;
	FILE *f;

	buf_addf(&path, "%s/token", dir);
	f = fopen(path.ptr, "w");
	assert_non_null(f);
	fputs("tok-from-a-file-5150\n", f);
	fclose(f);
	buf_addf(&text, "[tracker]\napi_key = s3cret-key-of-the-bot\n"
		 "[web]\ntoken_file = %s\n[smtp]\npassword = abc\n", path.ptr);
	config_init(&c);
	assert_int_equal(config_parse(&c, text.ptr, "test.conf", &err), 0);
	config_collect_secrets(&c);
	config_install(&c);
	buf_release(&text);
	buf_release(&err);
	buf_release(&path);
}

static void test_secret_values_anywhere(void **state)
{
	char dir[] = "/tmp/bbredact.XXXXXX";
	struct buf b = BUF_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	install_secrets(dir);
	buf_addstr(&b, "make[1]: api_key = s3cret-key-of-the-bot; tok-from-a-file-5150!"
		   "s3cret-key-of-the-bot");
	assert_int_equal(redact_secrets(&b), 1);
	assert_string_equal(b.ptr, "make[1]: api_key = REDACTED; REDACTED!REDACTED");
	/* too short to scrub without eating the text: "abc" stays */
	buf_reset(&b);
	buf_addstr(&b, "abc def");
	assert_int_equal(redact_secrets(&b), 0);
	assert_string_equal(b.ptr, "abc def");
	buf_release(&b);
}

/* What reaches the database is scrubbed too (db_bind_text). */
static void test_secret_never_stored(void **state)
{
	char dir[] = "/tmp/bbredact.XXXXXX", path[64];
	struct db db = { 0 };
	struct buf err = BUF_INIT;
	sqlite3_stmt *st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	install_secrets(dir);
	snprintf(path, sizeof(path), "%s/x.db", dir);
	assert_int_equal(db_open(&db, path, &err), 0);
	assert_int_equal(db_exec(&db, "CREATE TABLE t (v TEXT)"), 0);
	sqlite3_prepare_v2(db.h, "INSERT INTO t VALUES (?)", -1, &st, NULL);
	db_bind_text(st, 1, "build log: token tok-from-a-file-5150 leaked");
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_prepare_v2(db.h, "SELECT v FROM t", -1, &st, NULL);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0),
			    "build log: token REDACTED leaked");
	sqlite3_finalize(st);
	db_close(&db);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secret_values_anywhere),
		cmocka_unit_test(test_secret_never_stored),
		cmocka_unit_test(test_query_parameters),
		cmocka_unit_test(test_not_a_secret_left_alone),
		cmocka_unit_test(test_inside_messages),
		cmocka_unit_test(test_userinfo),
		cmocka_unit_test(test_redact_buf_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
