/*
 * Unit tests for runner/kbuild.c and runner/kexpr.c: which Makefile line
 * builds a file (lines of 6.1's drivers/scsi/Makefile, block/Makefile,
 * drivers/Makefile and Kbuild), what a Kconfig entry depends on (its own
 * "depends on", the ifs and menus around it, a help text that says "if"),
 * what an expression needs to become true and what keeps it false.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kbuild.h"
#include "kplan.h"

static const char scsi_makefile[] =
	"# SPDX-License-Identifier: GPL-2.0\n"
	"obj-$(CONFIG_SCSI_VIRTIO)\t+= virtio_scsi.o\n"
	"obj-$(CONFIG_BLK_DEV_SD)\t+= sd_mod.o\n"
	"obj-$(CONFIG_BLK_DEV_SR)\t+= sr_mod.o\n"
	"obj-$(CONFIG_CHR_DEV_SG)\t+= sg.o\n"
	"obj-m += only_module.o\n"
	"scsi_mod-y\t\t\t+= scsi.o hosts.o scsi_ioctl.o \\\n"
	"\t\t\t\t   scsicam.o scsi_error.o scsi_lib.o\n"
	"scsi_mod-$(CONFIG_SCSI_CONSTANTS) += constants.o\n"
	"scsi_mod-$(CONFIG_BLK_DEV_BSG)\t+= scsi_bsg.o\n"
	"sd_mod-objs\t:= sd.o\n"
	"sr_mod-objs\t:= sr.o sr_ioctl.o sr_vendor.o\n"
	"ifdef CONFIG_SCSI_FOO\n"
	"obj-y += foo.o # sd.o in a comment\n"
	"else\n"
	"obj-y += bar.o\n"
	"endif\n"
	"hostprogs-y += gen.o\n"
	"CFLAGS_sg.o := -DX\n"
	"GCOV_PROFILE_vdso.o := n\n";

static void test_rules(void **state)
{
	struct kbuild_rule *r;
	int n;

	(void)state;
	assert_int_equal(kbuild_rules(scsi_makefile, "sg.o", &r, &n), 1);
	assert_string_equal(r[0].option, "CHR_DEV_SG");
	assert_null(r[0].composite);
	kbuild_rules_free(r, n);

	/* a part of a composite object, on a continued line */
	assert_int_equal(kbuild_rules(scsi_makefile, "scsi_lib.o", &r, &n), 1);
	assert_string_equal(r[0].composite, "scsi_mod");
	assert_null(r[0].option);
	kbuild_rules_free(r, n);
	assert_int_equal(kbuild_rules(scsi_makefile, "sr_ioctl.o", &r, &n), 1);
	assert_string_equal(r[0].composite, "sr_mod");
	kbuild_rules_free(r, n);
	assert_int_equal(kbuild_rules(scsi_makefile, "scsi_bsg.o", &r, &n), 1);
	assert_string_equal(r[0].composite, "scsi_mod");
	assert_string_equal(r[0].option, "BLK_DEV_BSG");
	kbuild_rules_free(r, n);
	assert_int_equal(kbuild_rules(scsi_makefile, "sr_mod.o", &r, &n), 1);
	assert_string_equal(r[0].option, "BLK_DEV_SR");
	kbuild_rules_free(r, n);

	assert_int_equal(kbuild_rules(scsi_makefile, "only_module.o", &r, &n), 1);
	assert_true(r[0].module_only);
	kbuild_rules_free(r, n);
	/* a condition read, and one not: the build's check has the last word */
	assert_int_equal(kbuild_rules(scsi_makefile, "foo.o", &r, &n), 1);
	assert_int_equal(r[0].nconds, 1);
	assert_string_equal(r[0].conds[0], "SCSI_FOO");
	assert_false(r[0].unknown);
	kbuild_rules_free(r, n);
	assert_int_equal(kbuild_rules(scsi_makefile, "bar.o", &r, &n), 1);
	assert_true(r[0].unknown);
	kbuild_rules_free(r, n);
	/* a comment, a host program, a flag: nothing that builds them into the kernel */
	assert_int_equal(kbuild_rules(scsi_makefile, "sd.o", &r, &n), 1);
	assert_string_equal(r[0].composite, "sd_mod");
	kbuild_rules_free(r, n);
	assert_int_equal(kbuild_rules(scsi_makefile, "gen.o", &r, &n), 0);
	kbuild_rules_free(r, n);
	assert_int_equal(kbuild_rules(scsi_makefile, "nothing.o", &r, &n), 0);
	kbuild_rules_free(r, n);
}

static void test_dirs(void **state)
{
	const char *kbuild = "obj-y\t\t\t+= init/\nobj-$(CONFIG_BLOCK)\t+= block/\n"
			     "obj-y\t\t\t+= arch/$(SRCARCH)/\nobj-y += drivers/\n";
	const char *drivers = "obj-y\t\t\t\t+= base/ block/ misc/ mfd/ nfc/\n"
			      "obj-$(CONFIG_PARIDE) \t\t+= block/paride/\n"
			      "obj-$(subst m,y,$(CONFIG_HYPERV))\t+= hv/\n";
	const char *block = "obj-y\t\t:= bdev.o fops.o bio.o elevator.o blk-core.o \\\n"
			    "\t\t\tblk-mq.o partitions/\n";
	struct kbuild_rule *r;
	int n;

	(void)state;
	assert_int_equal(kbuild_rules(kbuild, "block/", &r, &n), 1);
	assert_string_equal(r[0].option, "BLOCK");
	kbuild_rules_free(r, n);
	assert_int_equal(kbuild_rules(kbuild, "arch/x86/", &r, &n), 1);
	assert_null(r[0].option);
	kbuild_rules_free(r, n);
	assert_int_equal(kbuild_rules(drivers, "block/paride/", &r, &n), 1);
	assert_string_equal(r[0].option, "PARIDE");
	kbuild_rules_free(r, n);
	assert_int_equal(kbuild_rules(drivers, "hv/", &r, &n), 1);
	assert_string_equal(r[0].option, "HYPERV");
	kbuild_rules_free(r, n);
	assert_int_equal(kbuild_rules(block, "blk-mq.o", &r, &n), 1);
	assert_null(r[0].option);
	assert_null(r[0].composite);
	kbuild_rules_free(r, n);
}

static void test_gcov_and_cmd(void **state)
{
	const char *cmd = "cmd_block/blk-mq.o := gcc ...\n\n"
			  "deps_block/blk-mq.o := \\\n"
			  "  ../include/linux/compiler-version.h \\\n"
			  "    $(wildcard include/config/BLK_DEBUG_FS) \\\n"
			  "  ../block/blk-mq.h \\\n"
			  "  arch/x86/include/generated/asm/rwonce.h \\\n\n"
			  "block/blk-mq.o: $(deps_block/blk-mq.o)\n";

	(void)state;
	assert_true(kbuild_gcov_off(scsi_makefile, "vdso.o"));
	assert_false(kbuild_gcov_off(scsi_makefile, "sg.o"));
	assert_true(kbuild_gcov_off("GCOV_PROFILE\t:= n\n", "anything.o"));
	assert_true(kbuild_cmd_lists(cmd, "block/blk-mq.h"));
	assert_true(kbuild_cmd_lists(cmd, "include/linux/compiler-version.h"));
	assert_false(kbuild_cmd_lists(cmd, "linux/compiler-version.h"));
	assert_false(kbuild_cmd_lists(cmd, "include/linux/blkdev.h"));
}

/* ---- Kconfig ---- */

static const char scsi_kconfig[] =
	"menu \"SCSI device support\"\n"
	"\n"
	"config SCSI\n"
	"\ttristate \"SCSI device support\"\n"
	"\tdepends on BLOCK\n"
	"\n"
	"config CHR_DEV_SG\n"
	"\ttristate \"SCSI generic support\"\n"
	"\tdepends on SCSI\n"
	"\thelp\n"
	"\t  If you want to use SCSI scanners, say Y.\n"
	"\n"
	"\t  if you say Y here, read the documentation\n"
	"\t  config FAKE inside a help text\n"
	"\n"
	"config BLK_DEV_BSG\n"
	"\tbool \"/dev/bsg support (SG v4)\"\n"
	"\tdepends on SCSI\n"
	"\tselect BLK_DEV_BSG_COMMON\n"
	"\n"
	"config BLK_DEV_BSG_COMMON\n"
	"\ttristate\n"
	"\n"
	"menuconfig SCSI_LOWLEVEL\n"
	"\tbool \"SCSI low-level drivers\"\n"
	"\tdepends on SCSI!=n\n"
	"\n"
	"if SCSI_LOWLEVEL && SCSI\n"
	"\n"
	"config SCSI_MESH\n"
	"\ttristate \"MESH (Power Mac internal SCSI) support\"\n"
	"\tdepends on PPC32 && PPC_PMAC && SCSI\n"
	"\n"
	"endif # SCSI_LOWLEVEL\n"
	"\n"
	"endmenu\n";

static void test_entries(void **state)
{
	struct kconfig_entry e;
	struct buf names = BUF_INIT;

	(void)state;
	kconfig_entry_init(&e);
	assert_true(kconfig_entry(scsi_kconfig, "CHR_DEV_SG", &e));
	assert_string_equal(e.depends.ptr, "(SCSI)");
	assert_true(e.prompt);
	/* the if block around it counts; the help text's "if" does not open one */
	assert_true(kconfig_entry(scsi_kconfig, "SCSI_MESH", &e));
	assert_string_equal(e.depends.ptr, "(SCSI_LOWLEVEL && SCSI) && (PPC32 && PPC_PMAC && SCSI)");
	assert_true(kconfig_entry(scsi_kconfig, "BLK_DEV_BSG_COMMON", &e));
	assert_false(e.prompt);
	assert_false(kconfig_entry(scsi_kconfig, "FAKE", &e));
	assert_false(kconfig_entry(scsi_kconfig, "NOPE", &e));
	kconfig_entry_release(&e);
	assert_int_equal(kconfig_selectors(scsi_kconfig, "BLK_DEV_BSG_COMMON", &names), 0);
	assert_string_equal(names.ptr, "BLK_DEV_BSG");
	buf_release(&names);
}

static const char *config_of(void *ctx, const char *sym)
{
	static const char *const set[][2] = {
		{ "SCSI", "y" }, { "BLOCK", "y" }, { "X86_64", "y" }, { "PCI", "y" },
		{ "SCSI_LOWLEVEL", "y" }, { "NR_CPUS", "64" },
	};

	(void)ctx;
	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
		if (!strcmp(set[i][0], sym))
			return set[i][1];
	return NULL;
}

static void needs_of(const char *text, int ret, const char *need, const char *why)
{
	struct kexpr x;
	struct buf n = BUF_INIT, w = BUF_INIT;

	assert_int_equal(kexpr_parse(text, &x), 0);
	assert_int_equal(kexpr_needs(&x, config_of, NULL, &n, &w), ret);
	assert_string_equal(n.ptr, need);
	assert_string_equal(w.ptr, why);
	buf_release(&n);
	buf_release(&w);
}

static void test_expressions(void **state)
{
	struct kexpr x;
	struct buf b = BUF_INIT;

	(void)state;
	needs_of("SCSI", 0, "", "");
	needs_of("PPC32 && PPC_PMAC && SCSI", 0, "PPC32 PPC_PMAC", "");
	needs_of("(SCSI_LOWLEVEL && SCSI) && (PPC32 && PPC_PMAC && SCSI)", 0, "PPC32 PPC_PMAC", "");
	needs_of("SCSI!=n && ISA", 0, "ISA", "");
	/* the first choice of an ||, never COMPILE_TEST */
	needs_of("ACPI || OF", 0, "ACPI", "");
	needs_of("COMPILE_TEST || ATARI", 0, "ATARI", "");
	needs_of("PCI || ATARI", 0, "", "");
	/* an option the config has would have to go */
	needs_of("SCSI && !X86_64", -1, "", "!X86_64");
	needs_of("X86_32=y", 0, "X86_32", "");
	needs_of("SCSI=n", -1, "", "SCSI=n");

	assert_int_equal(kexpr_parse("PPC32 && PPC_PMAC && SCSI", &x), 0);
	assert_false(kexpr_true(&x, config_of, NULL));
	kexpr_blockers(&x, config_of, NULL, &b);
	assert_string_equal(b.ptr, "PPC32, PPC_PMAC");
	buf_reset(&b);
	kexpr_text(&x, &b);
	assert_string_equal(b.ptr, "PPC32 && PPC_PMAC && SCSI");
	buf_reset(&b);
	assert_int_equal(kexpr_parse("!(A || B) && (C || !D)", &x), 0);
	kexpr_text(&x, &b);
	assert_string_equal(b.ptr, "!(A || B) && (C || !D)");
	assert_int_equal(kexpr_parse("", &x), 0);
	assert_true(kexpr_true(&x, config_of, NULL));
	/* what is not an expression bugbridge reads: refused, never half-read */
	assert_int_equal(kexpr_parse("$(cc-option,-mfoo)", &x), -1);
	assert_int_equal(kexpr_parse("A && (B", &x), -1);
	assert_int_equal(kexpr_parse("A = \"<script>\"", &x), -1);
	assert_int_equal(kexpr_parse("NR_CPUS > 1", &x), 0);
	assert_true(kexpr_true(&x, config_of, NULL));
	buf_release(&b);
}

/* What kind of file a path is: only C, headers and assembly can have lines that run. */
static void test_kinds(void **state)
{
	const char *why;

	(void)state;
	assert_int_equal(kplan_kind("drivers/scsi/sg.c", &why), KF_SOURCE);
	assert_null(why);
	assert_int_equal(kplan_kind("block/blk-mq.h", &why), KF_HEADER);
	assert_int_equal(kplan_kind("arch/x86/entry/entry_64.S", &why), KF_ASM);
	assert_string_equal(why, "assembly: gcov sees no lines of it");
	assert_int_equal(kplan_kind("drivers/scsi/Kconfig", &why), KF_BUILD);
	assert_int_equal(kplan_kind("drivers/scsi/megaraid/Kconfig.megaraid", &why), KF_BUILD);
	assert_int_equal(kplan_kind("block/Makefile", &why), KF_BUILD);
	assert_int_equal(kplan_kind("Documentation/scsi/sg.rst", &why), KF_DOC);
	assert_int_equal(kplan_kind("MAINTAINERS", &why), KF_DOC);
	assert_int_equal(kplan_kind("tools/perf/builtin-top.c", &why), KF_OTHER);
	assert_string_equal(why, "not part of the kernel");
	assert_int_equal(kplan_kind("scripts/kconfig/conf.c", &why), KF_OTHER);
	assert_int_equal(kplan_kind("arch/x86/boot/dts/x.dts", &why), KF_OTHER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_dirs),
		cmocka_unit_test(test_gcov_and_cmd),
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_expressions),
		cmocka_unit_test(test_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
