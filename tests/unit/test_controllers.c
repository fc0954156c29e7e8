/*
 * Unit tests for runner/controllers.c: the files a patch changes, and which
 * controllers' boots a job runs for them (issue 34); the scenarios file's
 * controller, config and selects directives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "controllers.h"
#include "scenario.h"
#include "apply.h"
#include "buf.h"

static const char scenarios[] =
	"version 1\n"
	"boot all\n  test sd-read\n"
	"boot hba-virtio\n  controller virtio default\n"
	"  selects drivers/scsi/virtio_scsi.c\n  test hba-virtio-read\n"
	"boot hba-megasas\n  controller megasas\n  config hba-megasas\n"
	"  selects drivers/scsi/megaraid/\n  test hba-megasas-read\n"
	"boot hba-ahci\n  controller ahci\n  config hba-ahci\n"
	"  selects drivers/ata/ include/linux/libata.h\n  test hba-ahci-read\n";

static const char patch[] =
	"From 1 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] two files\n\n---\n"
	" drivers/scsi/megaraid/megaraid_sas_base.c | 2 +-\n"
	"diff --git a/drivers/scsi/megaraid/megaraid_sas_base.c "
	"b/drivers/scsi/megaraid/megaraid_sas_base.c\n"
	"--- a/drivers/scsi/megaraid/megaraid_sas_base.c\n"
	"+++ b/drivers/scsi/megaraid/megaraid_sas_base.c\n"
	"@@ -1 +1 @@\n-a\n+b\n"
	"--- linux.orig/drivers/scsi/sd.c\t2024-01-01 00:00:00\n"
	"+++ linux/drivers/scsi/sd.c\t2024-01-01 00:00:00\n"
	"@@ -1 +1 @@\n-a\n+b\n"
	"--- a/drivers/scsi/old.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n"
	"--- a/drivers/scsi/megaraid/megaraid_sas_base.c\n"
	"+++ b/drivers/scsi/megaraid/megaraid_sas_base.c\n"
	"@@ -9 +9 @@\n-a\n+b\n";

static void test_files(void **state)
{
	char **files = NULL;
	int n = 0;

	(void)state;
	controllers_files(patch, &files, &n);
	assert_int_equal(n, 3);
	assert_string_equal(files[0], "drivers/scsi/megaraid/megaraid_sas_base.c");
	assert_string_equal(files[1], "drivers/scsi/sd.c");	/* tab and date cut */
	assert_string_equal(files[2], "drivers/scsi/old.c");	/* deleted: its old name */
	strv_free(files, n);
}

/* Which boots a job with these files (and override) runs, as "all,hba-x". */
static void chosen(const char *const *files, int n, const char *override, const char *want,
		   const char *why_has)
{
	struct scenario sc;
	struct buf err = BUF_INIT, why = BUF_INIT, got = BUF_INIT;
	bool keep[8];

	assert_int_equal(scenario_parse(scenarios, &sc, &err), 0);
	assert_int_equal(controllers_choose(&sc, (char *const *)files, n, override, keep, &why,
					    &err), 0);
	for (int i = 0; i < sc.nboots; i++)
		if (keep[i])
			buf_addf(&got, "%s%s", got.len ? "," : "", sc.boots[i].name);
	assert_string_equal(got.ptr, want);
	assert_non_null(strstr(why.ptr, why_has));
	scenario_release(&sc);
	buf_release(&err);
	buf_release(&why);
	buf_release(&got);
}

static void test_choose(void **state)
{
	const char *mega[] = { "drivers/scsi/megaraid/megaraid_sas_fusion.c" };
	const char *core[] = { "drivers/scsi/sr.c" };
	const char *both[] = { "drivers/ata/libata-scsi.c", "drivers/scsi/scsi_lib.c" };
	const char *near[] = { "drivers/scsi/megaraid.c", "include/linux/libata.h" };

	(void)state;
	chosen(mega, 1, "", "all,hba-megasas", "controllers: megasas (the patch changes only");
	chosen(core, 1, "", "all,hba-virtio", "virtio (the default set: the patch changes the core");
	chosen(both, 2, "", "all,hba-virtio,hba-ahci", "virtio, ahci (the default set for the core");
	/* megaraid.c is not under drivers/scsi/megaraid/: the old driver is core here */
	chosen(near, 2, "", "all,hba-virtio,hba-ahci", "virtio, ahci");
	chosen(NULL, 0, "", "all,hba-virtio", "no patch: the default set");
	chosen(mega, 1, "ahci", "all,hba-ahci", "controllers: ahci ([runner] controllers)");
	chosen(core, 1, "all", "all,hba-virtio,hba-megasas,hba-ahci", "[runner] controllers");
	chosen(core, 1, "none", "all", "controllers: none");
	chosen(mega, 1, "default, megasas", "all,hba-virtio,hba-megasas", "virtio, megasas");
}

static void test_bad_override(void **state)
{
	struct scenario sc;
	struct buf err = BUF_INIT, why = BUF_INIT;
	bool keep[8];

	(void)state;
	assert_int_equal(scenario_parse(scenarios, &sc, &err), 0);
	assert_int_equal(controllers_choose(&sc, NULL, 0, "megasas,lsi", keep, &why, &err), -1);
	assert_string_equal(err.ptr, "[runner] controllers: no controller 'lsi' in the scenarios"
				     " (known: virtio megasas ahci)");
	scenario_release(&sc);
	buf_release(&err);
	buf_release(&why);
}

static void test_keep_and_grammar(void **state)
{
	struct scenario sc;
	struct buf err = BUF_INIT;
	bool keep[] = { true, false, true, false };

	(void)state;
	assert_int_equal(scenario_parse(scenarios, &sc, &err), 0);
	assert_string_equal(sc.boots[2].config, "hba-megasas");
	assert_true(sc.boots[1].controller_default);
	assert_false(sc.boots[2].controller_default);
	assert_int_equal(sc.boots[3].nselects, 2);
	scenario_keep(&sc, keep);
	assert_int_equal(sc.nboots, 2);
	assert_string_equal(sc.boots[1].controller, "megasas");
	assert_null(scenario_boot_for(&sc, "hba-ahci-read"));
	scenario_release(&sc);

	assert_int_equal(scenario_parse("version 1\nboot a\n  config hba-x\n", &sc, &err), -1);
	assert_non_null(strstr(err.ptr, "config and selects belong to a controller's boot"));
	buf_reset(&err);
	assert_int_equal(scenario_parse("version 1\nboot a\n  controller x\n  selects ../etc/\n",
					&sc, &err), -1);
	assert_non_null(strstr(err.ptr, "line 4: bad source path '../etc/'"));
	buf_reset(&err);
	assert_int_equal(scenario_parse("version 1\nboot a\n  controller x\nboot b\n"
					"  controller x\n", &sc, &err), -1);
	assert_non_null(strstr(err.ptr, "controller x has two boots"));
	buf_reset(&err);
	assert_int_equal(scenario_parse("version 1\nboot a\n  controller x sometimes\n", &sc,
					&err), -1);
	assert_non_null(strstr(err.ptr, "controller takes one NAME"));
	buf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_bad_override),
		cmocka_unit_test(test_keep_and_grammar),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
