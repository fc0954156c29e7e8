/*
 * lavadef: the pure half of the LAVA backend (lava.c is the other): the job
 * definition a boot becomes, the guest's console taken back out of a LAVA
 * job log, and what a finished LAVA job means for the boot.
 *
 * The definition is written as JSON, which LAVA reads as the YAML it is a
 * subset of: json-c does the quoting, no YAML is built by hand.  A QEMU
 * device type gets what a local boot gets: the kernel with the same command
 * line, the initramfs, the scenario's disk images as images of their own
 * (LAVA fetches each and substitutes its path for "{NAME}"), the scenario's
 * QEMU arguments in an image_arg (the only place LAVA substitutes those
 * paths), and -no-reboot -nic none in extra_options.  The guest's network
 * is the device dictionary's to withhold (LAVA's stock qemu template adds
 * "-net nic -net user"); lava_log_console returns the QEMU command line so
 * that lava.c can refuse a lab that gives the guest one anyway.
 *
 * The log is LAVA 2023.01's: one "- {dt, lvl, msg}" flow mapping a line,
 * every scalar double-quoted (lava_common/log.py dumps with
 * default_style='"').  The serial console is the lines whose lvl is
 * "target", and "feedback" for what the connection read while LAVA was not
 * expecting anything (the line that ended a monitor can land there), in
 * the log's order; we decode those strings ourselves and do not read LAVA's
 * own test results, which flatten subtests and call "# SKIP" a pass.
 */
#include "hex.h"
#include "lavadef.h"
#include "scenario.h"
#include "buf.h"
#include "xalloc.h"

#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "@NAME@" -> "{NAME}" for each of the boot's images. */
static void subst_images(const struct scenario_boot *sb, const char *arg, struct buf *out)
{
	const char *p = arg;

	while (*p) {
		bool done = false;
		for (int i = 0; *p == '@' && i < sb->nimages && !done; i++) {
			size_t len = strlen(sb->images[i].name);
			if (!strncmp(p + 1, sb->images[i].name, len) && p[1 + len] == '@') {
				buf_addf(out, "{%s}", sb->images[i].name);
				p += len + 2;
				done = true;
			}
		}
		if (!done)
			buf_addch(out, *p++);
	}
}

static json_object *image(const char *url, const char *arg)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "url", json_object_new_string(url));
	json_object_object_add(o, "image_arg", json_object_new_string(arg));
	return o;
}

static json_object *seconds(long s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "seconds", json_object_new_int64(s));
	return o;
}

static json_object *deploy_action(const struct lava_def *d)
{
	json_object *deploy = json_object_new_object(), *images = json_object_new_object();
	struct buf arg = BUF_INIT, url = BUF_INIT;

	buf_addf(&arg, "-kernel {kernel} -append \"%s\"", d->append);
	json_object_object_add(images, "kernel", image(d->kernel_url, arg.ptr));
	buf_reset(&arg);
	buf_addstr(&arg, "-initrd {ramdisk}");
	for (int i = 0; !d->board && i < d->sb->nqemu; i++) {
		buf_addch(&arg, ' ');
		subst_images(d->sb, d->sb->qemu[i], &arg);
	}
	json_object_object_add(images, "ramdisk", image(d->ramdisk_url, arg.ptr));
	for (int i = 0; !d->board && i < d->sb->nimages; i++) {
		buf_reset(&url);
		buf_addf(&url, "%s/%s.img", d->images_url, d->sb->images[i].name);
		json_object_object_add(images, d->sb->images[i].name, image(url.ptr, ""));
	}
	json_object_object_add(deploy, "to", json_object_new_string(d->board ? "tftp" : "tmpfs"));
	json_object_object_add(deploy, "timeout", seconds(600));
	json_object_object_add(deploy, "images", images);
	buf_release(&arg);
	buf_release(&url);
	return deploy;
}

static json_object *test_action(const struct lava_def *d)
{
	json_object *test = json_object_new_object(), *mons = json_object_new_array();
	json_object *mon = json_object_new_object(), *fix = json_object_new_object();

	/* only so that LAVA follows the console to the end: we parse it ourselves */
	json_object_object_add(mon, "name", json_object_new_string("bbsuite"));
	json_object_object_add(mon, "start", json_object_new_string("Linux version"));
	json_object_object_add(mon, "end", json_object_new_string(LAVA_SUITE_END));
	json_object_object_add(mon, "pattern", json_object_new_string(
		"(?P<result>(ok|not ok)) (?P<test_case_id>\\d+)"));
	json_object_object_add(fix, "ok", json_object_new_string("pass"));
	json_object_object_add(fix, "not ok", json_object_new_string("fail"));
	json_object_object_add(mon, "fixupdict", fix);
	json_object_array_add(mons, mon);
	json_object_object_add(test, "timeout", seconds(d->test_timeout));
	json_object_object_add(test, "monitors", mons);
	return test;
}

static json_object *action(const char *name, json_object *body)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, name, body);
	return o;
}

/* LAVA's forms: "public", "personal", or {"group": [names]}. */
static json_object *visibility(const struct lava_def *d)
{
	json_object *names, *o;

	if (strcmp(d->visibility, "group"))
		return json_object_new_string(d->visibility);
	names = json_object_new_array();
	for (int i = 0; i < d->ngroups; i++)
		json_object_array_add(names, json_object_new_string(d->groups[i]));
	o = json_object_new_object();
	json_object_object_add(o, "group", names);
	return o;
}

void lava_definition(const struct lava_def *d, struct buf *out)
{
	json_object *job = json_object_new_object(), *ctx = json_object_new_object();
	json_object *extra = json_object_new_array(), *acts = json_object_new_array();
	json_object *timeouts = json_object_new_object(), *boot = json_object_new_object();
	char *end;
	long prio = strtol(d->priority, &end, 10);

	json_object_object_add(job, "job_name", json_object_new_string(d->job_name));
	json_object_object_add(job, "device_type", json_object_new_string(d->device_type));
	json_object_object_add(job, "priority", *end || !*d->priority
			       ? json_object_new_string(d->priority) : json_object_new_int64(prio));
	json_object_object_add(job, "visibility", visibility(d));
	json_object_object_add(timeouts, "job", seconds(d->job_timeout));
	json_object_object_add(timeouts, "action", seconds(d->job_timeout));
	json_object_object_add(timeouts, "connection", seconds(d->job_timeout));
	json_object_object_add(job, "timeouts", timeouts);
	json_object_object_add(ctx, "arch", json_object_new_string("x86_64"));
	if (!d->board) {
		json_object_object_add(ctx, "no_kvm", json_object_new_boolean(!d->kvm));
		json_object_object_add(ctx, "memory", json_object_new_int(512));
		json_object_array_add(extra, json_object_new_string("-no-reboot"));
		json_object_array_add(extra, json_object_new_string("-nic none"));
		json_object_array_add(extra, json_object_new_string("-smp 1"));
		json_object_object_add(ctx, "extra_options", extra);
	} else {
		json_object_put(extra);
	}
	json_object_object_add(job, "context", ctx);
	json_object_array_add(acts, action("deploy", deploy_action(d)));
	json_object_object_add(boot, "method", json_object_new_string(d->board ? d->boot_method
								     : "qemu"));
	if (!d->board)
		json_object_object_add(boot, "media", json_object_new_string("tmpfs"));
	json_object_object_add(boot, "timeout", seconds(300));
	json_object_array_add(acts, action("boot", boot));
	json_object_array_add(acts, action("test", test_action(d)));
	json_object_object_add(job, "actions", acts);
	buf_addstr(out, json_object_to_json_string_ext(job, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(job);
}

/* ---- the log ---- */

static void add_utf8(struct buf *out, unsigned long cp)
{
	if (cp < 0x80) {
		buf_addch(out, (char)cp);
	} else if (cp < 0x800) {
		buf_addch(out, (char)(0xc0 | cp >> 6));
		buf_addch(out, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addch(out, (char)(0xe0 | cp >> 12));
		buf_addch(out, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addch(out, (char)(0x80 | (cp & 0x3f)));
	} else {
		buf_addch(out, (char)(0xf0 | cp >> 18));
		buf_addch(out, (char)(0x80 | ((cp >> 12) & 0x3f)));
		buf_addch(out, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addch(out, (char)(0x80 | (cp & 0x3f)));
	}
}

/* One YAML escape after the backslash at *p; *p moves past it. */
static void unescape(const char **p, const char *end, struct buf *out)
{
	static const char from[] = "0abtnvfre \"/\\N_LP";
	static const char *const to[] = { "", "\a", "\b", "\t", "\n", "\v", "\f", "\r",
					  "\x1b", " ", "\"", "/", "\\", "\xc2\x85",
					  "\xc2\xa0", "\xe2\x80\xa8", "\xe2\x80\xa9" };
	const char *hit = *p < end ? strchr(from, **p) : NULL;
	int digits = 0;

	if (hit && **p) {
		if (hit == from)
			buf_addch(out, '\0');
		else
			buf_addstr(out, to[hit - from]);
		(*p)++;
		return;
	}
	if (*p < end)
		digits = **p == 'x' ? 2 : **p == 'u' ? 4 : **p == 'U' ? 8 : 0;
	if (digits && end - *p > digits) {
		unsigned long cp = 0;
		bool ok = true;
		for (int i = 1; i <= digits && ok; i++) {
			int h = hexval((*p)[i]);
			ok = h >= 0;
			cp = cp * 16 + (h >= 0 ? h : 0);
		}
		if (ok) {
			add_utf8(out, cp);
			*p += digits + 1;
			return;
		}
	}
	buf_addch(out, '\\');		/* not an escape we know: keep it as it was */
}

/* The double-quoted scalar starting at p (after its quote), up to end. */
static void dquoted(const char *p, const char *end, struct buf *out)
{
	while (p < end && *p != '"') {
		if (*p == '\\') {
			p++;
			unescape(&p, end, out);
		} else {
			buf_addch(out, *p++);
		}
	}
}

#define MSG_KEY "\"msg\": \""

int lava_log_console(const char *log, size_t len, struct buf *console, struct buf *boot_cmd)
{
	const char *p = log, *end = log + len;
	int lines = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *eol = nl ? nl : end;
		const char *lvl = memmem(p, eol - p, "\"lvl\": \"", 8);
		const char *msg = memmem(p, eol - p, MSG_KEY, strlen(MSG_KEY));

		if (lvl && msg && (!strncmp(lvl + 8, "target\"", 7) ||
				   !strncmp(lvl + 8, "feedback\"", 9))) {
			dquoted(msg + strlen(MSG_KEY), eol, console);
			buf_addch(console, '\n');
			lines++;
		} else if (lvl && msg && boot_cmd && !boot_cmd->len &&
			   !strncmp(msg + strlen(MSG_KEY), "Boot command: ", 14)) {
			dquoted(msg + strlen(MSG_KEY) + 14, eol, boot_cmd);
		}
		p = eol + 1;
	}
	return lines;
}

bool lava_cmd_has_network(const char *cmd)
{
	static const char *const nets[] = { "-net nic", "-net user", "-netdev", "-nic user",
					    "-nic tap", "-nic bridge", "virtio-net", "e1000",
					    NULL };

	for (int i = 0; nets[i]; i++)
		if (strstr(cmd, nets[i]))
			return true;
	return false;
}

/* ---- what a finished job means ---- */

enum lava_end lava_judge(const char *health, const char *failure, const char *console)
{
	bool started = strstr(console, "Linux version") != NULL;
	bool suite_end = strstr(console, LAVA_SUITE_END) != NULL;

	if (!strcmp(health, "Complete"))
		return started ? LAVA_END_RAN : LAVA_END_INFRA;
	if (!strcmp(health, "Canceled"))
		return LAVA_END_CANCELED;
	if (!started)
		return LAVA_END_INFRA;		/* the kernel never ran: the lab's failure */
	if (suite_end || strstr(console, "Kernel panic - not syncing"))
		return LAVA_END_RAN;		/* the guest ended itself; its console says how */
	if (failure && strstr(failure, "timed out"))
		return LAVA_END_TIMEOUT;	/* the guest hung past the test's timeout */
	if (failure && strstr(failure, "Connection closed"))
		return LAVA_END_RAN;		/* QEMU exited, as it does locally */
	return LAVA_END_INFRA;
}
