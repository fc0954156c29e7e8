/*
 * Unit tests for lib/base64: the RFC 4648 vectors both ways, every byte
 * value through a round trip, and what the decoder refuses (Bugzilla's
 * attachment data, the guest's gcov lines and the stand-in's uploads all
 * come through it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"

static const char *const vectors[][2] = {
	{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
	{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
};

static void test_rfc4648(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		buf_reset(&out);
		assert_int_equal(base64_encode(&out, vectors[i][0], strlen(vectors[i][0])), 0);
		assert_string_equal(out.ptr, vectors[i][1]);
		buf_reset(&out);
		assert_int_equal(base64_decode(&out, vectors[i][1], strlen(vectors[i][1])), 0);
		assert_string_equal(out.ptr, vectors[i][0]);
	}
	buf_release(&out);
}

/* Every byte value, at every offset within a 3-byte group. */
static void test_round_trip(void **state)
{
	unsigned char all[258];
	struct buf enc = BUF_INIT, dec = BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(all); i++)
		all[i] = (unsigned char)(i * 7 + 3);
	for (size_t len = 255; len <= sizeof(all); len++) {
		buf_reset(&enc);
		buf_reset(&dec);
		assert_int_equal(base64_encode(&enc, all, len), 0);
		assert_int_equal(enc.len, (len + 2) / 3 * 4);
		assert_null(strchr(enc.ptr, '\n'));
		assert_int_equal(base64_decode(&dec, enc.ptr, enc.len), 0);
		assert_int_equal(dec.len, len);
		assert_memory_equal(dec.ptr, all, len);
	}
	buf_release(&enc);
	buf_release(&dec);
}

static void test_decode_tolerates(void **state)
{
	/* line breaks and blanks anywhere, padding optional */
	struct buf out = BUF_INIT;
	const char *folded = "aGVs\r\nbG8g\td29y bGQ=";

	(void)state;
	assert_int_equal(base64_decode(&out, folded, strlen(folded)), 0);
	assert_string_equal(out.ptr, "hello world");
	buf_reset(&out);
	assert_int_equal(base64_decode(&out, "aGVsbG8", 7), 0);
	assert_string_equal(out.ptr, "hello");
	buf_release(&out);
}

static void test_decode_refuses(void **state)
{
	static const char *const bad[] = {
		"aGVs*G8=",	/* not a base64 character */
		"aG==VsbG8",	/* data after padding */
		"aGVsbA===",	/* three '=' */
		"aGVs-G8_",	/* the URL alphabet is not this one */
	};
	struct buf out = BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		buf_reset(&out);
		assert_int_equal(base64_decode(&out, bad[i], strlen(bad[i])), -1);
	}
	/* the length is the input's end, not a NUL */
	buf_reset(&out);
	assert_int_equal(base64_decode(&out, "Zm9v*", 4), 0);
	assert_string_equal(out.ptr, "foo");
	buf_release(&out);
}

/* A capped buffer: the codec fails instead of growing past it. */
static void test_cap(void **state)
{
	struct buf out;

	(void)state;
	buf_init(&out, 5);
	assert_int_equal(base64_decode(&out, "Zm9vYmFy", 8), -1);
	assert_true(out.overflow);
	buf_release(&out);
	buf_init(&out, 7);
	assert_int_equal(base64_encode(&out, "foobar", 6), -1);
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc4648),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_decode_tolerates),
		cmocka_unit_test(test_decode_refuses),
		cmocka_unit_test(test_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
