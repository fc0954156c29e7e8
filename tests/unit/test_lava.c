/*
 * Unit tests for runner/lavadef.c: the job definition a boot becomes, the
 * console out of a LAVA 2023.01 log (lines as lava_common/log.py writes
 * them), the network check of the QEMU command line, and what a finished
 * LAVA job means.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <json.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "lavadef.h"
#include "ktap.h"
#include "buf.h"

static const char log_text[] =
	"- {\"dt\": \"2026-12-04T17:18:54.9\", \"lvl\": \"info\", \"msg\": \"start: 1 tmpfs\"}\n"
	"- {\"dt\": \"2026-12-04T17:18:55.0\", \"lvl\": \"info\", \"msg\": \"Boot command:"
	" /usr/bin/qemu-system-x86_64 -nographic -nic none -append \\\"console=ttyS0\\\"\"}\n"
	"- {\"dt\": \"2026-12-04T17:18:55.1\", \"lvl\": \"target\", \"msg\": \"[    0.0] Linux"
	" version 6.1.192\"}\n"
	"- {\"dt\": \"2026-12-04T17:18:55.2\", \"lvl\": \"results\", \"msg\": {\"case\": \"x\","
	" \"result\": \"pass\"}}\n"
	"- {\"dt\": \"2026-12-04T17:18:55.3\", \"lvl\": \"target\", \"msg\": \"KTAP version 1\"}\n"
	"- {\"dt\": \"2026-12-04T17:18:55.4\", \"lvl\": \"target\", \"msg\": \"# a \\\"quote\\\","
	" a tab\\there, \\\\ and \\xe9\\u2192\"}\n"
	"- {\"dt\": \"2026-12-04T17:18:55.5\", \"lvl\": \"target\", \"msg\": \"ok 1 - x # SKIP n\"}\n"
	/* the line that ends a monitor can come as feedback */
	"- {\"dt\": \"2026-12-04T17:18:55.6\", \"lvl\": \"feedback\", \"msg\": \"# bbsuite exit"
	" status 0\", \"ns\": \"common\"}\n"
	"- {\"dt\": \"2026-12-04T17:18:55.7\", \"lvl\": \"info\", \"msg\": \"Job finished\"}\n";

static void test_log_console(void **state)
{
	struct buf con = BUF_INIT, cmd = BUF_INIT;
	struct ktap_result k = { 0 };

	(void)state;
	assert_int_equal(lava_log_console(log_text, strlen(log_text), &con, &cmd), 5);
	assert_string_equal(con.ptr, "[    0.0] Linux version 6.1.192\nKTAP version 1\n"
			    "# a \"quote\", a tab\there, \\ and \xc3\xa9\xe2\x86\x92\n"
			    "ok 1 - x # SKIP n\n# bbsuite exit status 0\n");
	assert_string_equal(cmd.ptr, "/usr/bin/qemu-system-x86_64 -nographic -nic none"
			    " -append \"console=ttyS0\"");
	/* our KTAP parser reads it, SKIP and all (LAVA's own mapping says pass) */
	ktap_parse(con.ptr, con.len, &k);
	assert_int_equal(k.ntests, 1);
	assert_int_equal(k.tests[0].status, KTAP_SKIP);
	ktap_release(&k);
	assert_false(lava_cmd_has_network(cmd.ptr));
	assert_true(lava_cmd_has_network("qemu -net nic,model=virtio -net user -m 512"));
	assert_true(lava_cmd_has_network("qemu -netdev user,id=n0 -device virtio-net,netdev=n0"));
	buf_release(&con);
	buf_release(&cmd);
}

static void test_judge(void **state)
{
	(void)state;
	assert_int_equal(lava_judge("Complete", "", "Linux version\n# bbsuite exit status 0"),
			 LAVA_END_RAN);
	/* QEMU exits at a panic (-no-reboot): Incomplete, "Connection closed" */
	assert_int_equal(lava_judge("Incomplete", "Connection closed", "Linux version\n"
				    "Kernel panic - not syncing: boom"), LAVA_END_RAN);
	assert_int_equal(lava_judge("Incomplete", "Connection closed", "SeaBIOS"),
			 LAVA_END_INFRA);
	assert_int_equal(lava_judge("Incomplete", "lava-test-monitor timed out after 300 seconds",
				    "Linux version\nKTAP version 1\n"), LAVA_END_TIMEOUT);
	assert_int_equal(lava_judge("Incomplete", "Device lost", "Linux version\n"),
			 LAVA_END_INFRA);
	assert_int_equal(lava_judge("Canceled", "", "Linux version\n"), LAVA_END_CANCELED);
	assert_int_equal(lava_judge("Complete", "", ""), LAVA_END_INFRA);
}

static void test_definition(void **state)
{
	struct scenario sc = { 0 };
	struct buf err = BUF_INIT, def = BUF_INIT, app = BUF_INIT;
	struct lava_def d = { 0 };
	json_object *root, *v, *imgs, *img;
	const char *text = "version 1\nboot all\n  image qdisk 4096 zero\n"
			   "  cmdline scsi_debug.x=1\n  qemu -device virtio-scsi-pci,id=vscsi\n"
			   "  qemu -blockdev driver=file,node-name=q,filename=@qdisk@\n"
			   "  test sd-read emulated\n";

	(void)state;
	assert_int_equal(scenario_parse(text, &sc, &err), 0);
	scenario_append(&sc.boots[0], "sd-read", &app);
	assert_string_equal(app.ptr, "console=ttyS0 panic=-1 oops=panic loglevel=7"
			    " scsi_debug.x=1 bbsuite.only=sd-read");
	d.job_name = "bugbridge job 1 patched all";
	d.device_type = "qemu";
	d.priority = "50";
	d.visibility = "public";
	d.job_timeout = 900;
	d.test_timeout = 300;
	d.kernel_url = "http://h/a/T/bzImage";
	d.ramdisk_url = "http://h/a/T/initramfs.cpio";
	d.images_url = "http://h/a/T";
	d.append = app.ptr;
	d.sb = &sc.boots[0];
	lava_definition(&d, &def);
	root = json_tokener_parse(def.ptr);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "priority", &v));
	assert_int_equal(json_object_get_int(v), 50);
	assert_non_null(strstr(def.ptr, "\"-nic none\""));
	assert_non_null(strstr(def.ptr, "\"-no-reboot\""));
	assert_non_null(strstr(def.ptr, "\"no_kvm\":true"));
	imgs = json_object_object_get(json_object_object_get(json_object_array_get_idx(
		json_object_object_get(root, "actions"), 0), "deploy"), "images");
	img = json_object_object_get(imgs, "ramdisk");
	assert_string_equal(json_object_get_string(json_object_object_get(img, "image_arg")),
			    "-initrd {ramdisk} -device virtio-scsi-pci,id=vscsi"
			    " -blockdev driver=file,node-name=q,filename={qdisk}");
	img = json_object_object_get(imgs, "qdisk");
	assert_string_equal(json_object_get_string(json_object_object_get(img, "url")),
			    "http://h/a/T/qdisk.img");
	img = json_object_object_get(imgs, "kernel");
	assert_string_equal(json_object_get_string(json_object_object_get(img, "image_arg")),
			    "-kernel {kernel} -append \"console=ttyS0 panic=-1 oops=panic"
			    " loglevel=7 scsi_debug.x=1 bbsuite.only=sd-read\"");
	assert_string_equal(json_object_get_string(json_object_object_get(root, "visibility")),
			    "public");
	json_object_put(root);
	/* a private bug's job in a group's sight: LAVA's {"group": [names]} form */
	char *groups[] = { "security", "scsi-maint", NULL };
	d.visibility = "group";
	d.groups = groups;
	d.ngroups = 2;
	buf_reset(&def);
	lava_definition(&d, &def);
	root = json_tokener_parse(def.ptr);
	assert_non_null(root);
	v = json_object_object_get(json_object_object_get(root, "visibility"), "group");
	assert_int_equal(json_object_array_length(v), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 1)), "scsi-maint");
	json_object_put(root);
	scenario_release(&sc);
	buf_release(&err);
	buf_release(&def);
	buf_release(&app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_console),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_definition),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
