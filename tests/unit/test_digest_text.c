/*
 * Unit tests for lib/digest_text.c: a digest's text without the items of
 * bugs and jobs that became private (the shape mail/digest_build.c writes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "digest_text.h"

static const char digest[] =
	"bugbridge digest for SCSI\n"
	"Since 2026-12-05 00:00 UTC, until 2026-12-06 00:00 UTC.\n"
	"\n"
	"New bugs (2)\n"
	"------------\n"
	"#9370 NEW 5h  secret summary of 9370\n"
	"    https://bugzilla.example.org/show_bug.cgi?id=9370\n"
	"#9372 NEW 5h  #9370 job 7: a summary that quotes another item\n"
	"    https://bugzilla.example.org/show_bug.cgi?id=9372\n"
	"\n"
	"Test results (3)\n"
	"----------------\n"
	"#9370 job 7: FAIL (FAIL->FAIL)  fix.patch\n"
	"    https://bugbridge.example.org/job/7\n"
	"job 8: PASS  unpatched base\n"
	"    https://bugbridge.example.org/job/8\n"
	"#93701 job 9: PASS  other.patch\n"
	"    https://bugbridge.example.org/job/9\n"
	"... and 2 more\n"
	"\n"
	"Stats: 2 open; 2 opened and 0 closed since the last digest.\n"
	"\n"
	"-- \n"
	"bugbridge, https://bugbridge.example.org/\n";

struct seen {
	int items;
	long long hide_bug, hide_job;
};

static bool hide(const struct digest_item *it, void *ctx)
{
	struct seen *s = ctx;

	s->items++;
	return (s->hide_bug && it->bug == s->hide_bug) || (s->hide_job && it->job == s->hide_job);
}

static void test_private_bug_left_out(void **state)
{
	struct seen s = { .hide_bug = 9370 };
	struct buf out = BUF_INIT;

	(void)state;
	assert_int_equal(digest_text_filter(digest, hide, &s, &out), 2);
	assert_int_equal(s.items, 5);
	assert_null(strstr(out.ptr, "secret summary"));
	assert_null(strstr(out.ptr, "#9370 job 7: FAIL"));
	assert_null(strstr(out.ptr, "id=9370\n"));
	assert_null(strstr(out.ptr, "/job/7"));
	/* a summary that quotes an item is text, not an item; #93701 is another bug */
	assert_non_null(strstr(out.ptr, "#9372 NEW 5h  #9370 job 7: a summary"));
	assert_non_null(strstr(out.ptr, "#93701 job 9"));
	assert_non_null(strstr(out.ptr, "job 8: PASS  unpatched base\n    https://bugbridge.example.org/job/8\n"));
	assert_non_null(strstr(out.ptr, "... and 2 more\n\nStats: 2 open"));
	assert_non_null(strstr(out.ptr, "New bugs (2)\n------------\n#9372"));
	buf_release(&out);
}

static void test_private_job_left_out(void **state)
{
	struct seen s = { .hide_job = 8 };
	struct buf out = BUF_INIT;

	(void)state;
	assert_int_equal(digest_text_filter(digest, hide, &s, &out), 1);
	assert_null(strstr(out.ptr, "job 8:"));
	assert_null(strstr(out.ptr, "/job/8"));
	assert_non_null(strstr(out.ptr, "secret summary of 9370"));
	buf_release(&out);
}

static void test_nothing_hidden_is_the_same_text(void **state)
{
	struct seen s = { 0 };
	struct buf out = BUF_INIT;

	(void)state;
	assert_int_equal(digest_text_filter(digest, hide, &s, &out), 0);
	assert_string_equal(out.ptr, digest);
	buf_reset(&out);
	/* no final newline; "#" or "job" without a number is no item */
	assert_int_equal(digest_text_filter("#x y\njob :\n#9370 z", hide, &s, &out), 0);
	assert_string_equal(out.ptr, "#x y\njob :\n#9370 z");
	s.hide_bug = 9370;
	buf_reset(&out);
	assert_int_equal(digest_text_filter("#x y\n    url\n#9370 z", hide, &s, &out), 1);
	assert_string_equal(out.ptr, "#x y\n    url\n");
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private_bug_left_out),
		cmocka_unit_test(test_private_job_left_out),
		cmocka_unit_test(test_nothing_hidden_is_the_same_text),
	};
	return cmocka_run_group_tests_name("digest_text", tests, NULL, NULL);
}
