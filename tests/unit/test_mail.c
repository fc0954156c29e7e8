/* Unit tests for server/mail: cleaning, truncation, RFC 2047, QP, compose. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "message.h"

static void expect_clean(const char *in, const char *want)
{
	struct buf out = BUF_INIT;

	mail_clean_text(&out, in);
	assert_string_equal(out.ptr, want);
	buf_release(&out);
}

static void test_clean_text(void **state)
{
	(void)state;
	expect_clean("plain", "plain");
	expect_clean("a\r\nBcc: x@y\r\n\r\nbody", "a Bcc: x@y body");
	expect_clean("  lead\t\ttab  trail \n", "lead tab trail");
	expect_clean("esc \x1b[31mred\x7f", "esc [31mred");
	expect_clean("c1 \xc2\x85next \xe2\x80\xa8line", "c1 next line");
	expect_clean("bad \xff\xfe end", "bad \xef\xbf\xbd\xef\xbf\xbd end");
	expect_clean("overlong \xc0\xaf", "overlong \xef\xbf\xbd\xef\xbf\xbd");
	expect_clean("surrogate \xed\xa0\x80", "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	expect_clean("cut \xe6\x97", "cut \xef\xbf\xbd\xef\xbf\xbd");
	expect_clean("日本語 ok", "日本語 ok");
	expect_clean("\r\n", "");
}

static void expect_trunc(const char *in, size_t width, const char *want)
{
	struct buf out = BUF_INIT;

	mail_add_truncated(&out, in, width);
	assert_string_equal(out.ptr, want);
	assert_true(mail_text_width(out.ptr) <= width);
	buf_release(&out);
}

static void test_truncate(void **state)
{
	(void)state;
	expect_trunc("short", 10, "short");
	expect_trunc("exactly10!", 10, "exactly10!");
	expect_trunc("one two three four", 9, "one two…");
	expect_trunc("äöüäöüäöü", 5, "äöüä…");
	expect_trunc("日本語のテスト", 4, "日本語…");
	expect_trunc("abc", 0, "");
	expect_trunc("abcdef", 1, "…");
	assert_int_equal(mail_text_width("日本語"), 3);
}

static void test_date(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	mail_add_date(&out, 1796289810);
	assert_string_equal(out.ptr, "Thu, 03 Dec 2026 09:23:30 +0000");
	buf_release(&out);
}

static void test_message_id(void **state)
{
	struct buf a = BUF_INIT, b = BUF_INIT;

	(void)state;
	assert_int_equal(mail_new_message_id(&a, "digest.2026-12-03", "Bot <bot@lists.example.org>", 7), 0);
	assert_int_equal(mail_new_message_id(&b, "digest.2026-12-03", "Bot <bot@lists.example.org>", 7), 0);
	assert_true(a.ptr[0] == '<' && a.ptr[a.len - 1] == '>');
	assert_non_null(strstr(a.ptr, "@lists.example.org>"));
	assert_non_null(strstr(a.ptr, "<digest.2026-12-03.7."));
	assert_string_not_equal(a.ptr, b.ptr);
	buf_reset(&a);
	assert_int_equal(mail_new_message_id(&a, "x y\r\n", "nodomain", 1), 0);
	assert_null(strpbrk(a.ptr, " \r\n"));
	assert_non_null(strstr(a.ptr, "@localhost>"));
	buf_release(&a);
	buf_release(&b);
}

/* Every line of a header block at most max characters. */
static void assert_lines_within(const char *s, size_t max)
{
	while (*s) {
		size_t len = strcspn(s, "\n");

		if (len && s[len - 1] == '\r')
			len--;
		if (len > max)
			fail_msg("line of %zu > %zu: %.*s", len, max, (int)len, s);
		s += strcspn(s, "\n");
		if (*s)
			s++;
	}
}

static void test_header_ascii_folding(void **state)
{
	struct buf out = BUF_INIT, val = BUF_INIT;

	(void)state;
	mail_add_header(&out, "Subject", "[bugbridge] SCSI digest 2026-12-03: 4 new, "
			"2 need attention, 2 results and then some more words");
	assert_lines_within(out.ptr, 78);
	assert_non_null(strstr(out.ptr, "\r\n "));
	assert_int_equal(mail_header_value(out.ptr, "subject", &val), 0);
	assert_string_equal(val.ptr, "[bugbridge] SCSI digest 2026-12-03: 4 new, "
			    "2 need attention, 2 results and then some more words");
	buf_release(&out);
	buf_release(&val);
}

static void test_header_injection(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	mail_add_header(&out, "Subject", "hi\r\nBcc: victim@example.org\n\nbody");
	assert_string_equal(out.ptr, "Subject: hi Bcc: victim@example.org body\r\n");
	buf_release(&out);
}

static void test_header_rfc2047(void **state)
{
	struct buf out = BUF_INIT;
	const char *p;

	(void)state;
	mail_add_header(&out, "Subject", "[bugbridge] Périphériques digest: "
			"日本語のテスト 日本語のテスト 日本語のテスト");
	assert_lines_within(out.ptr, 78);
	for (const unsigned char *u = (const unsigned char *)out.ptr; *u; u++)
		assert_true(*u < 0x80);
	/* each encoded word at most 75 characters */
	for (p = out.ptr; (p = strstr(p, "=?UTF-8?B?")); p++) {
		const char *end = strstr(p + 10, "?=");

		assert_non_null(end);
		assert_true(end + 2 - p <= 75);
	}
	buf_reset(&out);
	/* ASCII that looks like an encoded word is encoded, not passed on */
	mail_add_header(&out, "Subject", "=?UTF-8?B?SGk=?=");
	assert_non_null(strstr(out.ptr, "Subject: =?UTF-8?B?PT9VVEYtOD9CP1NHaz0/PQ==?="));
	buf_release(&out);
}

static void test_qp(void **state)
{
	struct buf out = BUF_INIT;
	char longline[200];

	(void)state;
	mail_add_qp(&out, "café = 1 \nend\t\n");
	assert_string_equal(out.ptr, "caf=C3=A9 =3D 1=20\r\nend=09\r\n");
	buf_reset(&out);
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = 0;
	mail_add_qp(&out, longline);
	assert_lines_within(out.ptr, 76);
	assert_non_null(strstr(out.ptr, "=\r\n"));
	buf_release(&out);
}

static void test_compose(void **state)
{
	struct buf out = BUF_INIT, val = BUF_INIT;
	struct mail m = {
		.from = "bugbridge <bot@example.org>",
		.to = "linux-scsi@vger.kernel.org",
		.subject = "s\r\nX-Injected: yes",
		.message_id = "<a@b>",
		.in_reply_to = "<prev@b>",
		.references = "<first@b> <prev@b>",
		.list_id = "bugbridge digest <x.example.org>",
		.date = 0,
		.body = "héllo\nworld\n",
	};
	const char *body;

	(void)state;
	mail_compose(&m, &out, false);
	body = strstr(out.ptr, "\r\n\r\n");
	assert_non_null(body);
	assert_null(strstr(out.ptr, "\r\nX-Injected"));
	assert_non_null(strstr(out.ptr, "Content-Transfer-Encoding: quoted-printable\r\n"));
	assert_string_equal(body + 4, "h=C3=A9llo\r\nworld\r\n");
	assert_int_equal(mail_header_value(out.ptr, "In-Reply-To", &val), 0);
	assert_string_equal(val.ptr, "<prev@b>");
	assert_int_equal(mail_header_value(out.ptr, "References", &val), 0);
	assert_string_equal(val.ptr, "<first@b> <prev@b>");
	assert_int_equal(mail_header_value(out.ptr, "Date", &val), 0);
	assert_string_equal(val.ptr, "Thu, 01 Jan 1970 00:00:00 +0000");
	assert_int_equal(mail_header_value(out.ptr, "Bcc", &val), -1);
	/* header lookup stops at the body */
	assert_int_equal(mail_header_value(out.ptr, "world", &val), -1);

	buf_reset(&out);
	m.body = "ascii only";
	m.in_reply_to = NULL;
	mail_compose(&m, &out, false);
	assert_non_null(strstr(out.ptr, "Content-Transfer-Encoding: 7bit\r\n\r\nascii only\r\n"));
	assert_null(strstr(out.ptr, "In-Reply-To"));

	buf_reset(&out);
	m.body = "héllo";
	mail_compose(&m, &out, true);
	assert_non_null(strstr(out.ptr, "Content-Transfer-Encoding: 8bit\r\n\r\nhéllo\r\n"));
	buf_release(&out);
	buf_release(&val);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_text),
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_date),
		cmocka_unit_test(test_message_id),
		cmocka_unit_test(test_header_ascii_folding),
		cmocka_unit_test(test_header_injection),
		cmocka_unit_test(test_header_rfc2047),
		cmocka_unit_test(test_qp),
		cmocka_unit_test(test_compose),
	};

	return cmocka_run_group_tests_name("mail", tests, NULL, NULL);
}
