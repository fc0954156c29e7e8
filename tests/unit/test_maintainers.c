/*
 * Unit tests for lib/maintainers: the real 6.1 MAINTAINERS (extracted from
 * /usr/src/linux-source-6.1.tar.xz into the cache once, never into the
 * repository), plus small synthetic files for X: exclusions, N: regexes and
 * the get_maintainer.pl depth rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "child.h"
#include "maintainers.h"

static const char tarball[] = "/usr/src/linux-source-6.1.tar.xz";

static bool has(const char **v, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static bool has_prefix(const char **v, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strncmp(v[i], s, strlen(s)))
			return true;
	return false;
}

/* $BB_MAINTAINERS, else the cached copy, extracted on first use. */
static int real_maintainers(struct buf *text)
{
	const char *env = getenv("BB_MAINTAINERS");
	const char *xdg = getenv("XDG_CACHE_HOME");
	struct buf dir = BUF_INIT, path = BUF_INIT;
	int ret = -1;

	if (env && *env) {
		ret = buf_read_file(text, env);
		goto out;
	}
	if (xdg && *xdg)
		buf_addf(&dir, "%s/bugbridge/maintainers-linux-source-6.1", xdg);
	else if (getenv("HOME"))
		buf_addf(&dir, "%s/.cache/bugbridge/maintainers-linux-source-6.1", getenv("HOME"));
	else
		goto out;
	buf_addf(&path, "%s/linux-source-6.1/MAINTAINERS", dir.ptr);
	if (access(path.ptr, R_OK)) {
		const char *mkdir_argv[] = { "mkdir", "-p", dir.ptr, NULL };
		const char *tar_argv[] = { "tar", "-xJf", tarball, "-C", dir.ptr,
					   "linux-source-6.1/MAINTAINERS", NULL };
		struct child mk = CHILD_INIT, tar = CHILD_INIT;

		if (access(tarball, R_OK))
			goto out;
		mk.argv = mkdir_argv;
		tar.argv = tar_argv;
		tar.timeout = 600;
		if (child_run(&mk) || mk.exit_code || child_run(&tar) || tar.exit_code)
			goto out;
	}
	ret = buf_read_file(text, path.ptr);
out:
	buf_release(&dir);
	buf_release(&path);
	return ret;
}

static void test_real_sd_maps_to_scsi(void **state)
{
	struct buf text = BUF_INIT;
	struct maint_db db = MAINT_DB_INIT;
	struct maint_result r = MAINT_RESULT_INIT;
	const char *files[] = { "drivers/scsi/sd.c" };
	const struct maint_entry *scsi;

	(void)state;
	if (real_maintainers(&text)) {
		buf_release(&text);
		skip();
	}
	maint_parse(&db, text.ptr, text.len);
	assert_true(db.n > 2000);
	scsi = maint_find(&db, "SCSI SUBSYSTEM");
	assert_non_null(scsi);
	assert_string_equal(scsi->status, "Maintained");

	maint_for_files(&db, files, 1, &r);
	assert_true(r.nentries >= 1);
	assert_true(has_prefix(r.people, r.npeople, "\"James E.J. Bottomley\""));
	assert_true(has_prefix(r.people, r.npeople, "\"Martin K. Petersen\""));
	assert_true(has(r.lists, r.nlists, "linux-scsi@vger.kernel.org"));
	/* THE REST is only a fallback: not for a file with a real owner */
	assert_false(has(r.lists, r.nlists, "linux-kernel@vger.kernel.org"));
	for (int i = 0; i < r.nentries; i++)
		assert_string_not_equal(r.entries[i]->title, "THE REST");
	maint_result_release(&r);

	/* a file nobody owns falls back to THE REST */
	files[0] = "no-such-dir/x.c";
	maint_for_files(&db, files, 1, &r);
	assert_int_equal(r.nentries, 1);
	assert_string_equal(r.entries[0]->title, "THE REST");
	assert_true(has(r.lists, r.nlists, "linux-kernel@vger.kernel.org"));
	maint_result_release(&r);

	/* the tape driver: its own entry (deeper) before the subsystem */
	files[0] = "drivers/scsi/st.c";
	maint_for_files(&db, files, 1, &r);
	assert_true(r.nentries >= 2);
	assert_string_equal(r.entries[0]->title, "SCSI TAPE DRIVER");
	assert_non_null(maint_find(&db, "SCSI SUBSYSTEM"));
	maint_result_release(&r);

	maint_release(&db);
	buf_release(&text);
}

static const char synthetic[] =
	"List of maintainers\n"
	"====================\n"
	"\tM: Mail patches to (not a tag line: indented)\n"
	"\n"
	"FOO DRIVER\n"
	"M:\tAlice Example <alice@example.org>\n"
	"R:\tBob Review <bob@example.org>\n"
	"L:\tfoo@lists.example.org (moderated for non-subscribers)\n"
	"S:\tMaintained\n"
	"F:\tdrivers/foo/\n"
	"X:\tdrivers/foo/legacy/\n"
	"X:\tdrivers/foo/old_*.c\n"
	"\n"
	"FOO HEADERS\n"
	"M:\tCarol <carol@example.org>\n"
	"S:\tOdd Fixes\n"
	"F:\tinclude/linux/foo*.h\n"
	"F:\tdrivers/foo\n"
	"\n"
	"ARM/ACME SOC SUPPORT\n"
	"M:\tDave <dave@example.org>\n"
	"L:\tarm@lists.example.org\n"
	"S:\tMaintained\n"
	"N:\tacme\n"
	"N:\tsun[x456789]i\n"
	"N:\t(?:perl-only)\n"
	"K:\tacme_[a-z]+_init\n"
	"\n"
	"THE REST\n"
	"M:\tLinus <torvalds@example.org>\n"
	"L:\tlkml@example.org\n"
	"S:\tBuried alive in reporters\n"
	"F:\t*\n"
	"F:\t*/\n";

static void lookup(struct maint_db *db, const char *file, struct maint_result *r)
{
	const char *files[] = { file };

	maint_result_release(r);
	maint_for_files(db, files, 1, r);
}

static void test_exclusions(void **state)
{
	struct maint_db db = MAINT_DB_INIT;
	struct maint_result r = MAINT_RESULT_INIT;

	(void)state;
	maint_parse(&db, synthetic, strlen(synthetic));
	assert_int_equal(db.n, 4);
	assert_string_equal(db.entries[0].title, "FOO DRIVER");
	assert_string_equal(db.entries[0].lists.v[0], "foo@lists.example.org");

	lookup(&db, "drivers/foo/core.c", &r);
	assert_true(has(r.people, r.npeople, "Alice Example <alice@example.org>"));
	assert_true(has(r.people, r.npeople, "Bob Review <bob@example.org>"));
	assert_true(has(r.lists, r.nlists, "foo@lists.example.org"));
	/* "F: drivers/foo" without '/' names a directory: Carol too */
	assert_true(has(r.people, r.npeople, "Carol <carol@example.org>"));

	/* X: directory exclusion */
	lookup(&db, "drivers/foo/legacy/a.c", &r);
	assert_false(has(r.people, r.npeople, "Alice Example <alice@example.org>"));
	assert_true(has(r.people, r.npeople, "Carol <carol@example.org>"));

	/* X: glob exclusion at its own depth only */
	lookup(&db, "drivers/foo/old_scsi.c", &r);
	assert_false(has(r.people, r.npeople, "Alice Example <alice@example.org>"));
	lookup(&db, "drivers/foo/sub/old_scsi.c", &r);
	assert_true(has(r.people, r.npeople, "Alice Example <alice@example.org>"));

	/* a glob without '/' at the end does not reach into subdirectories */
	lookup(&db, "include/linux/foo_bar.h", &r);
	assert_true(has(r.people, r.npeople, "Carol <carol@example.org>"));
	lookup(&db, "include/linux/foo/bar.h", &r);
	assert_false(has(r.people, r.npeople, "Carol <carol@example.org>"));
	assert_true(has(r.lists, r.nlists, "lkml@example.org"));

	maint_result_release(&r);
	maint_release(&db);
}

static void test_name_regexes(void **state)
{
	struct maint_db db = MAINT_DB_INIT;
	struct maint_result r = MAINT_RESULT_INIT;
	const struct maint_entry *acme;

	(void)state;
	maint_parse(&db, synthetic, strlen(synthetic));
	lookup(&db, "arch/arm/boot/dts/acme-board.dts", &r);
	assert_true(has(r.lists, r.nlists, "arm@lists.example.org"));
	assert_false(has(r.lists, r.nlists, "lkml@example.org"));
	lookup(&db, "drivers/clk/sunxi/clk-sun8i.c", &r);
	assert_true(has(r.lists, r.nlists, "arm@lists.example.org"));
	lookup(&db, "drivers/clk/sun3i.c", &r);
	assert_false(has(r.lists, r.nlists, "arm@lists.example.org"));
	/* a Perl-only regex is refused, never matched */
	lookup(&db, "perl-only", &r);
	assert_false(has(r.lists, r.nlists, "arm@lists.example.org"));

	acme = maint_find(&db, "ARM/ACME SOC SUPPORT");
	assert_non_null(acme);
	assert_true(maint_keyword_match(acme, "+\tacme_clk_init(dev);"));
	assert_false(maint_keyword_match(acme, "+\tfoo_init(dev);"));

	maint_result_release(&r);
	maint_release(&db);
}

static void test_patterns(void **state)
{
	(void)state;
	assert_true(maint_pattern_match("drivers/scsi/", "drivers/scsi/sd.c"));
	assert_true(maint_pattern_match("drivers/scsi/", "drivers/scsi/a/b.c"));
	assert_true(maint_pattern_match("drivers/scsi/st.*", "drivers/scsi/st.c"));
	assert_false(maint_pattern_match("drivers/scsi/st.*", "drivers/scsi/sd.c"));
	assert_true(maint_pattern_match("drivers/scsi/st_*.h", "drivers/scsi/st_options.h"));
	assert_true(maint_pattern_match("arch/*/include/uapi/", "arch/x86/include/uapi/a.h"));
	assert_true(maint_pattern_match("*", "Makefile"));
	assert_false(maint_pattern_match("*", "drivers/scsi/sd.c"));
	assert_true(maint_pattern_match("*/", "drivers/scsi/sd.c"));
	assert_true(maint_pattern_match("drivers/scsi/sd?c", "drivers/scsi/sd.c"));
	assert_false(maint_pattern_match("", "drivers/scsi/sd.c"));
	assert_false(maint_pattern_match("drivers/scsi/sd.c", "drivers/scsi/sd"));
	/* many stars on a long path stays a plain miss, quickly */
	assert_false(maint_pattern_match("*a*a*a*a*a*a*a*a*a*a*b",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
}

static void test_garbage_is_harmless(void **state)
{
	struct maint_db db = MAINT_DB_INIT;
	struct maint_result r = MAINT_RESULT_INIT;
	static const char junk[] = "F:\nX:\nN:[[[\nK:(\nM:\n\n\nZ:zzz\nS:\r\n\0F:*";
	char addr[64];

	(void)state;
	maint_parse(&db, junk, sizeof(junk) - 1);
	assert_true(db.n >= 1);
	lookup(&db, "a/b.c", &r);
	maint_result_release(&r);
	maint_release(&db);

	/* regexes that would make glibc's compiler or matcher explode never match */
	{
		static const char *const evil[] = {
			"e++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++",
			"((((a+)+)+)+)", "a{1000}{1000}", "(a*)\\1\\1\\1", "a*b*c*d*e*f*g*h*i*j*k*l*m*n*o*p*q*r*",
		};
		for (size_t i = 0; i < sizeof(evil) / sizeof(evil[0]); i++) {
			struct buf t = BUF_INIT;

			buf_addf(&t, "EVIL\nM:\tEve <eve@example.org>\nN:\t%s\n", evil[i]);
			maint_parse(&db, t.ptr, t.len);
			lookup(&db, "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeaaaaaaaaaaaaa", &r);
			assert_int_equal(r.npeople, 0);
			maint_result_release(&r);
			maint_release(&db);
			buf_release(&t);
		}
		/* a plain one still works */
		static const char ok_text[] = "OK\nM:\tOk <ok@example.org>\nN:\t(foo|bar)_[a-z]+\n";

		maint_parse(&db, ok_text, strlen(ok_text));
		lookup(&db, "drivers/x/bar_baz.c", &r);
		assert_int_equal(r.npeople, 1);
		maint_result_release(&r);
		maint_release(&db);
	}

	maint_address("\"Martin K. Petersen\" <martin.petersen@oracle.com>", addr, sizeof(addr));
	assert_string_equal(addr, "martin.petersen@oracle.com");
	maint_address("list@example.org", addr, sizeof(addr));
	assert_string_equal(addr, "list@example.org");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_exclusions),
		cmocka_unit_test(test_name_regexes),
		cmocka_unit_test(test_garbage_is_harmless),
		cmocka_unit_test(test_real_sd_maps_to_scsi),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
