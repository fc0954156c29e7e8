/* Unit tests for lib/redact: no secret survives into a logged string. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_parameters),
		cmocka_unit_test(test_not_a_secret_left_alone),
		cmocka_unit_test(test_inside_messages),
		cmocka_unit_test(test_userinfo),
		cmocka_unit_test(test_redact_buf_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
