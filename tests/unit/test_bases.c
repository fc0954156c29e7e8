/* Unit tests for lib/bases: versions in free text, base names, apt's release list, the base a bug gets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "bases.h"

static void expect_version(const char *text, bool context, int major, int minor, int patch)
{
	struct kver v;

	if (!kver_find(text, context, &v))
		fail_msg("no version found in '%s'", text);
	if (v.major != major || v.minor != minor || v.patch != patch)
		fail_msg("'%s': %d.%d.%d, want %d.%d.%d", text, v.major, v.minor, v.patch, major,
			 minor, patch);
}

static void expect_none(const char *text, bool context)
{
	struct kver v;

	if (kver_find(text, context, &v))
		fail_msg("'%s': found %d.%d, want none", text, v.major, v.minor);
}

static void test_versions(void **state)
{
	(void)state;
	expect_version("6.12.3-rc1", false, 6, 12, 3);
	expect_version("2.6.24-rc2-409-g9418d5d", false, 2, 6, 24);
	expect_version("6.6", false, 6, 6, -1);
	expect_version("v6.1.90", false, 6, 1, 90);
	expect_version("I run Linux 6.1.0-18-amd64 here", true, 6, 1, 0);
	expect_version("seen on kernel 6.11.2 and later", true, 6, 11, 2);
	expect_version("bisected to v6.10", true, 6, 10, -1);
	expect_none("QEMU 7.2 with a CD", true);		/* no kernel named */
	expect_none("at 10.0.2.15 over virtio", false);	/* an address */
	expect_none("unspecified", false);
	expect_none("version 1.2 of the tool", false);	/* majors 2..9 only */
	expect_none("sda5.1", false);			/* inside a word */
}

static void test_names(void **state)
{
	struct base b;
	struct buf name = BUF_INIT;

	(void)state;
	assert_int_equal(base_parse("linux-source-6.12", &b), 0);
	assert_string_equal(b.series, "6.12");
	assert_false(base_is_release(&b));
	assert_int_equal(base_parse("linux-source-6.1=6.1.170-3", &b), 0);
	assert_string_equal(b.series, "6.1");
	assert_string_equal(b.version, "6.1.170-3");
	assert_int_equal(b.kv.patch, 170);
	base_name(&b, &name);
	assert_string_equal(name.ptr, "linux-source-6.1=6.1.170-3");
	assert_int_equal(base_parse("linux-source-6.12=6.12.107-1~deb12u1", &b), 0);
	/* refused: another series' release, a path, no package, a shell word */
	assert_int_equal(base_parse("linux-source-6.1=6.12.107-1", &b), -1);
	assert_int_equal(base_parse("linux-source-6.1/../x", &b), -1);
	assert_int_equal(base_parse("6.1", &b), -1);
	assert_int_equal(base_parse("linux-source-6.1=6.1.170;rm", &b), -1);
	assert_int_equal(base_parse("linux-source-6.1.170", &b), -1);
	buf_release(&name);
}

static const char madison[] =
	"linux-source-6.1 | 6.1.192-3 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages\n"
	"linux-source-6.1 | 6.1.192-1 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages\n"
	"linux-source-6.1 | 6.1.192-2 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages\n"
	"linux-source-6.1 | 6.1.190-1 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages\n"
	"linux-source-6.1 | 6.1.76-1 | http://deb.debian.org/debian bookworm/main amd64 Packages\n"
	"linux-source-6.1 | 6.1.170-3 | http://deb.debian.org/debian bookworm/main amd64 Packages\n"
	"linux-source-6.12 | 6.12.118-1~deb12u1 | http://deb.debian.org/debian-security x Packages\n"
	"garbage line\n";

static void test_releases(void **state)
{
	struct release *r = NULL;
	int n = 0;

	(void)state;
	assert_int_equal(releases_parse(madison, "linux-source-6.1", true, &r, &n), 6);
	assert_string_equal(r[3].version, "6.1.192-1");
	assert_string_equal(r[5].version, "6.1.192-3");
	free(r);
	assert_int_equal(releases_parse(madison, "linux-source-6.1", false, &r, &n), 4);
	assert_int_equal(n, 4);
	/* oldest first by number (76 before 170), the latest revision of 192 */
	assert_string_equal(r[0].version, "6.1.76-1");
	assert_string_equal(r[1].version, "6.1.170-3");
	assert_string_equal(r[2].version, "6.1.190-1");
	assert_string_equal(r[3].version, "6.1.192-3");
	free(r);
	assert_int_equal(releases_parse("", "linux-source-6.1", false, &r, &n), 0);
	free(r);
}

static void choose(const char *cf, const char *ver, const char *desc, const char *want,
		   const char *reason)
{
	char *kept[] = { "linux-source-6.1", "linux-source-6.12" };
	struct buf base = BUF_INIT, why = BUF_INIT;

	base_choose(cf, ver, desc, kept, 2, "linux-source-6.1", &base, &why);
	if (strcmp(base.ptr, want) || !strstr(why.ptr, reason))
		fail_msg("(%s, %s, %s): %s because '%s'; want %s because '%s'", cf, ver, desc,
			 base.ptr, why.ptr, want, reason);
	buf_release(&base);
	buf_release(&why);
}

static void test_choose(void **state)
{
	(void)state;
	choose("6.12.3", "6.1", "", "linux-source-6.12",
	       "kernel version field (cf_kernel_version) says 6.12.3: series 6.12");
	choose("", "6.6", "", "linux-source-6.1", "version field says 6.6: series 6.1, the nearest");
	choose("", "6.7", "", "linux-source-6.12", "series 6.12, the nearest");
	choose("2.6.24-rc2-409-g9418d5d", "2.6.24", "", "linux-source-6.1", "says 2.6.24");
	choose("", "unspecified", "Since Linux 6.11.2 my CD reads fail", "linux-source-6.12",
	       "description says 6.11.2: series 6.12, the nearest");
	choose("", "unspecified", "QEMU 7.2", "linux-source-6.1", "names no kernel version");
	choose("", "", "", "linux-source-6.1", "the default base");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_releases),
		cmocka_unit_test(test_choose),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
