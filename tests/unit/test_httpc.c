/* Unit tests for lib/httpc: query encoding and the backoff schedule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "httpc.h"

static void test_query_encoding(void **state)
{
	struct buf url = BUF_INIT;

	(void)state;
	buf_addstr(&url, "http://h/rest/bug");
	httpc_query_add(&url, "product", "IO/Storage");
	httpc_query_add(&url, "component", "Block Layer");
	httpc_query_add(&url, "last_change_time", "2026-12-03T08:33:40Z");
	httpc_query_addf(&url, "limit", "%d", 500);
	httpc_query_add(&url, "summary", "a&b=c?d#e%f+g");
	assert_string_equal(url.ptr,
		"http://h/rest/bug?product=IO%2FStorage&component=Block%20Layer"
		"&last_change_time=2026-12-03T08%3A33%3A40Z&limit=500"
		"&summary=a%26b%3Dc%3Fd%23e%25f%2Bg");
	buf_release(&url);
}

/* backoff * 2^n, jittered into its upper half, capped at a minute. */
static void test_backoff(void **state)
{
	(void)state;
	for (int i = 0; i < 200; i++) {
		long d0 = httpc_backoff_ms(500, 0), d3 = httpc_backoff_ms(500, 3);
		long big = httpc_backoff_ms(500, 40);

		assert_true(d0 >= 250 && d0 <= 500);
		assert_true(d3 >= 2000 && d3 <= 4000);
		assert_true(big >= 30000 && big <= 60000);
	}
	assert_true(httpc_backoff_ms(0, 0) >= 0);
}

/* Nobody listens on port 9 of loopback: a connect failure, no answer. */
static void test_connect_failure(void **state)
{
	struct httpc_opts opts = { .connect_timeout = 2, .timeout = 2, .retries = 1, .backoff_ms = 1 };
	struct httpc_request req = { .url = "http://127.0.0.1:9/rest/version?api_key=SECRETKEY", .retry = true };
	struct httpc_response resp = HTTPC_RESPONSE_INIT;
	struct httpc c;
	struct buf err = BUF_INIT;

	(void)state;
	assert_int_equal(httpc_init(&c, &opts, &err), 0);
	assert_int_equal(httpc_do(&c, &req, &resp, &err), -1);
	assert_int_equal(resp.fail, HTTPC_FAIL_CONNECT);
	assert_int_equal(resp.attempts, 2);	/* retried once */
	assert_null(strstr(err.ptr, "SECRETKEY"));
	assert_non_null(strstr(err.ptr, "cannot GET 'http://127.0.0.1:9/rest/version?api_key=REDACTED'"));
	httpc_response_release(&resp);
	httpc_release(&c);
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_encoding),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_connect_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
