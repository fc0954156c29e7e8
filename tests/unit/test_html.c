/* Unit tests for lib/html: the escapers every tracker string goes through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

static void check(void (*fn)(struct buf *, const char *), const char *in, const char *want)
{
	struct buf b = BUF_INIT;

	fn(&b, in);
	assert_string_equal(b.ptr, want);
	buf_release(&b);
}

static void test_txt_script(void **state)
{
	(void)state;
	check(html_txt, "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
}

static void test_txt_quotes_and_amp(void **state)
{
	(void)state;
	check(html_txt, "a \"b\" 'c' & d", "a &quot;b&quot; &#39;c&#39; &amp; d");
	check(html_txt, "&amp;", "&amp;amp;");
}

static void test_txt_plain_and_null(void **state)
{
	(void)state;
	check(html_txt, "sd: lost completion", "sd: lost completion");
	check(html_txt, "", "");
	check(html_txt, NULL, "");
	check(html_txt, "caf\xc3\xa9 \xe2\x80\x94 ok", "caf\xc3\xa9 \xe2\x80\x94 ok");
}

static void test_txt_drops_control_chars(void **state)
{
	(void)state;
	check(html_txt, "a\x01" "b\x1b[31mc\td\ne\x7f", "ab[31mc\td\ne");
}

static void test_attr_cannot_break_out(void **state)
{
	(void)state;
	check(html_attr, "\" onmouseover=\"alert(1)", "&quot; onmouseover=&quot;alert(1)");
	check(html_attr, "' onclick='x' <a>", "&#39; onclick=&#39;x&#39; &lt;a&gt;");
}

static void test_url_arg(void **state)
{
	(void)state;
	check(html_url_arg, "SCSI", "SCSI");
	check(html_url_arg, "IO/Storage", "IO%2FStorage");
	check(html_url_arg, "a b&c=d?e#f", "a%20b%26c%3Dd%3Fe%23f");
	check(html_url_arg, "\"><script>", "%22%3E%3Cscript%3E");
	check(html_url_arg, "x-y_z.~1", "x-y_z.~1");
	check(html_url_arg, "\xc3\xa9", "%C3%A9");
	check(html_url_arg, NULL, "");
}

static void test_cut_keeps_utf8_whole(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	html_txt_cut(&b, "<b>bold</b>", 100);
	assert_string_equal(b.ptr, "&lt;b&gt;bold&lt;/b&gt;");
	buf_reset(&b);
	html_txt_cut(&b, "abc<def", 4);
	assert_string_equal(b.ptr, "abc&lt;\xe2\x80\xa6");
	buf_reset(&b);
	/* "é" is two bytes: cutting after 2 bytes must not split it. */
	html_txt_cut(&b, "a\xc3\xa9z", 2);
	assert_string_equal(b.ptr, "a\xe2\x80\xa6");
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_txt_script),
		cmocka_unit_test(test_txt_quotes_and_amp),
		cmocka_unit_test(test_txt_plain_and_null),
		cmocka_unit_test(test_txt_drops_control_chars),
		cmocka_unit_test(test_attr_cannot_break_out),
		cmocka_unit_test(test_url_arg),
		cmocka_unit_test(test_cut_keeps_utf8_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
