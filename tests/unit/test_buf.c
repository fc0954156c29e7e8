/* Unit tests for lib/buf: growth, formatting, the cap, detach, files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"

static void test_empty_is_terminated(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_non_null(b.ptr);
	assert_string_equal(b.ptr, "");
	assert_int_equal(b.len, 0);
	buf_release(&b);
	assert_string_equal(b.ptr, "");
}

static void test_add_and_format(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(buf_addstr(&b, "bug "), 0);
	assert_int_equal(buf_addf(&b, "%d: %s", 9370, "attempt to access"), 0);
	assert_int_equal(buf_addch(&b, '!'), 0);
	assert_string_equal(b.ptr, "bug 9370: attempt to access!");
	assert_int_equal(b.len, strlen(b.ptr));
	buf_release(&b);
}

static void test_growth_keeps_content(void **state)
{
	struct buf b = BUF_INIT;
	char expect[10001];

	(void)state;
	for (int i = 0; i < 10000; i++) {
		buf_addch(&b, 'a' + i % 26);
		expect[i] = 'a' + i % 26;
	}
	expect[10000] = '\0';
	assert_string_equal(b.ptr, expect);
	/* a long formatted append crosses the allocation boundary */
	buf_reset(&b);
	buf_addf(&b, "%s%s", expect, expect);
	assert_int_equal(b.len, 20000);
	assert_memory_equal(b.ptr + 10000, expect, 10000);
	buf_release(&b);
}

static void test_cap_refuses_and_keeps(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 8);
	assert_int_equal(buf_addstr(&b, "12345"), 0);
	assert_int_equal(buf_addstr(&b, "6789"), -1);
	assert_true(b.overflow);
	assert_string_equal(b.ptr, "12345");
	assert_int_equal(buf_addf(&b, "%s", "abcdef"), -1);
	assert_string_equal(b.ptr, "12345");
	assert_int_equal(buf_addstr(&b, "678"), 0);
	assert_string_equal(b.ptr, "12345678");
	buf_release(&b);
}

static void test_cap_on_formatted_fit(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 70);
	/* fill the first allocation (64 bytes) partly, then exceed the cap */
	buf_addstr(&b, "0123456789");
	assert_int_equal(buf_addf(&b, "%s", "0123456789012345678901234567890123456789"), 0);
	assert_int_equal(buf_addf(&b, "%s", "0123456789012345678901234567890123456789"), -1);
	assert_int_equal(b.len, 50);
	assert_int_equal(strlen(b.ptr), 50);
	buf_release(&b);
}

static void test_detach_hands_over(void **state)
{
	struct buf b = BUF_INIT;
	size_t len;
	char *s;

	(void)state;
	s = buf_detach(&b, &len);
	assert_string_equal(s, "");
	free(s);
	buf_addstr(&b, "kept");
	s = buf_detach(&b, &len);
	assert_int_equal(len, 4);
	assert_string_equal(s, "kept");
	assert_string_equal(b.ptr, "");
	free(s);
}

static void test_trim_setlen(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	buf_addstr(&b, " \t key = value \r\n");
	buf_trim(&b);
	assert_string_equal(b.ptr, "key = value");
	buf_setlen(&b, 3);
	assert_string_equal(b.ptr, "key");
	buf_setlen(&b, 100);
	assert_string_equal(b.ptr, "key");
	assert_true(buf_starts_with(&b, "ke"));
	assert_false(buf_starts_with(&b, "keys"));
	buf_release(&b);
}

static void test_read_file(void **state)
{
	char path[] = "/tmp/bbbufXXXXXX";
	struct buf b = BUF_INIT, small;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "line one\nline two\n", 18), 18);
	close(fd);
	assert_int_equal(buf_read_file(&b, path), 0);
	assert_string_equal(b.ptr, "line one\nline two\n");
	buf_init(&small, 5);
	assert_int_equal(buf_read_file(&small, path), -1);
	assert_true(small.overflow);
	assert_int_equal(buf_read_file(&b, "/nonexistent/file"), -1);
	unlink(path);
	buf_release(&b);
	buf_release(&small);
}

/* Exact parts only: no prefix, suffix or empty match; the item's length counts. */
static void test_str_list_has(void **state)
{
	(void)state;
	assert_true(str_list_has("auto|kvm|tcg", '|', "kvm", 3));
	assert_true(str_list_has("auto|kvm|tcg", '|', "tcg", 3));
	assert_true(str_list_has("auto|kvm|tcg", '|', "auto", 4));
	assert_false(str_list_has("auto|kvm|tcg", '|', "kv", 2));
	assert_false(str_list_has("auto|kvm|tcg", '|', "kvm|tcg", 7));
	assert_false(str_list_has("auto|kvm|tcg", '|', "", 0));
	assert_false(str_list_has("", '|', "", 0));
	assert_true(str_list_has("CONFIG_A=y\nCONFIG_B=m\n", '\n', "CONFIG_B=m+junk", 10));
	assert_false(str_list_has("CONFIG_A=y\nCONFIG_B=mm\n", '\n', "CONFIG_B=m", 10));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_is_terminated),
		cmocka_unit_test(test_add_and_format),
		cmocka_unit_test(test_growth_keeps_content),
		cmocka_unit_test(test_cap_refuses_and_keeps),
		cmocka_unit_test(test_cap_on_formatted_fit),
		cmocka_unit_test(test_detach_hands_over),
		cmocka_unit_test(test_trim_setlen),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_str_list_has),
	};
	return cmocka_run_group_tests_name("buf", tests, NULL, NULL);
}
