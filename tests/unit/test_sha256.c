/* Unit tests for lib/sha256 (the FIPS 180-4 / NIST example vectors) and lib/hex. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "hex.h"

static void test_empty(void **state)
{
	char hex[SHA256_HEX_LEN];

	(void)state;
	sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_abc(void **state)
{
	char hex[SHA256_HEX_LEN];

	(void)state;
	sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_two_blocks(void **state)
{
	static const char msg[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[SHA256_HEX_LEN];

	(void)state;
	sha256_hex(msg, strlen(msg), hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_long_message(void **state)
{
	static const char msg[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
				  "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	char hex[SHA256_HEX_LEN];

	(void)state;
	sha256_hex(msg, strlen(msg), hex);
	assert_string_equal(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

/* One million 'a', fed in odd-sized pieces to exercise the block carry. */
static void test_million_a_in_pieces(void **state)
{
	unsigned char d[SHA256_LEN];
	char chunk[997], hex[SHA256_HEX_LEN];
	struct sha256 ctx;
	size_t left = 1000000;

	(void)state;
	memset(chunk, 'a', sizeof(chunk));
	sha256_init(&ctx);
	while (left) {
		size_t n = left < sizeof(chunk) ? left : sizeof(chunk);
		sha256_update(&ctx, chunk, n);
		left -= n;
	}
	sha256_final(&ctx, d);
	hex_encode(hex, d, SHA256_LEN);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Lengths around the padding boundary (55, 56, 63, 64 bytes). */
static void test_padding_boundaries(void **state)
{
	char msg[65], hex[SHA256_HEX_LEN];

	(void)state;
	memset(msg, 'a', sizeof(msg));
	sha256_hex(msg, 55, hex);
	assert_string_equal(hex, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	sha256_hex(msg, 56, hex);
	assert_string_equal(hex, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	sha256_hex(msg, 64, hex);
	assert_string_equal(hex, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

/* hex_encode: lowercase, two digits a byte (leading zeros kept), NUL-ended. */
static void test_hex_encode(void **state)
{
	static const unsigned char d[] = { 0x00, 0x0f, 0xa5, 0xff, 0x10 };
	char out[2 * sizeof(d) + 2];

	(void)state;
	memset(out, 'x', sizeof(out));
	hex_encode(out, d, sizeof(d));
	assert_string_equal(out, "000fa5ff10");
	assert_int_equal(out[sizeof(out) - 1], 'x');	/* nothing past the NUL */
	hex_encode(out, d, 0);
	assert_string_equal(out, "");
	assert_int_equal(hexval('a'), 10);
	assert_int_equal(hexval('F'), 15);
	assert_int_equal(hexval('g'), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_abc),
		cmocka_unit_test(test_two_blocks),
		cmocka_unit_test(test_long_message),
		cmocka_unit_test(test_million_a_in_pieces),
		cmocka_unit_test(test_padding_boundaries),
		cmocka_unit_test(test_hex_encode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
