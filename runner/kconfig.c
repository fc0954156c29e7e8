/*
 * kconfig: the kernel configuration of a job's build.
 *
 * `make ARCH=x86_64 tinyconfig`, then the fragments from
 * kernel-patches/configs/ (base.config, plus <variant>.config for [runner]
 * config_variant, plus gcov.config for a coverage build) and the job's own
 * (bb-grow.config: the options its patch's files need, kplan.c) merged
 * with the kernel's scripts/kconfig/merge_config.sh -m, then `make
 * olddefconfig`.  Kconfig silently drops an option whose dependencies are
 * not met, so afterwards every option the fragments ask for is checked in
 * the final .config: a missing one of configs/ is an infra-error naming it
 * (our configuration is wrong, not the patch).  The job's own options were
 * tried by kplan.c's probe before anything was built; the baseline gets
 * those its Kconfig has, and one that does not stick there (the patch
 * changed its Kconfig) is only noted on the job page.
 *
 * All of it runs in the sandbox: Kconfig files and scripts come from the
 * patched tree.
 */
#include "kconfig.h"
#include "kplan.h"
#include "run.h"
#include "stage.h"
#include "sandbox.h"
#include "apply.h"
#include "paths.h"
#include "buf.h"
#include "child.h"
#include "xalloc.h"
#include "config.h"
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A tinyconfig .config is about 30 KiB, allyesconfig's 300 KiB. */
#define KCONFIG_MAX (4 << 20)

/* "CONFIG_X=" set to anything in config? The value into val. */
static bool find_value(const char *config, const char *name, size_t nlen, struct buf *val)
{
	const char *p = config;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		if (l > nlen && !strncmp(p, name, nlen) && p[nlen] == '=') {
			buf_add(val, p + nlen + 1, l - nlen - 1);
			return true;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

int kconf_missing(const char *fragment, const char *config, struct buf *missing)
{
	const char *p = fragment;
	struct buf name = BUF_INIT, have = BUF_INIT;
	int count = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *eq = memchr(p, '=', len);

		buf_reset(&name);
		buf_reset(&have);
		if (!strncmp(p, "CONFIG_", 7) && eq) {
			buf_add(&name, p, eq - p);
			if (!str_list_has(config, '\n', p, len)) {
				bool set = find_value(config, name.ptr, name.len, &have);
				buf_addf(missing, "%s%.*s (%s%s)", count ? ", " : "", (int)len, p,
					 set ? "have " : "not set", set ? have.ptr : "");
				count++;
			}
		} else if (!strncmp(p, "# CONFIG_", 9) && len > 13 &&
			   !strncmp(p + len - 11, " is not set", 11)) {
			buf_add(&name, p + 2, len - 13);
			if (find_value(config, name.ptr, name.len, &have) &&
			    strcmp(have.ptr, "n")) {
				buf_addf(missing, "%s%s=n (have %s)", count ? ", " : "", name.ptr,
					 have.ptr);
				count++;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	buf_release(&name);
	buf_release(&have);
	return count;
}

static int sandboxed_make(struct run *r, struct variant *v, const char *const *args,
			  bool in_out, const char *log_path)
{
	struct sandbox sb = { .tree = v->tree, .out = v->out, .in_out = in_out,
			      .flags = SB_DROP };
	struct sandbox_cmd cmd;
	struct child ch = CHILD_INIT;
	const char *env[] = { "KCONFIG_NOSILENTUPDATE=", "ARCH=x86_64", NULL };
	struct buf flood = BUF_INIT;
	int ret;

	sandbox_wrap(&sb, args, &cmd);
	ch.argv = (const char *const *)cmd.argv;
	ch.cwd = cmd.cwd;
	ch.env = env;
	ch.clean_env = true;
	ch.log_path = log_path;
	ch.timeout = 600;
	ret = stage_child(r, &ch);
	if (joblog_child(r, &ch)) {
		ret = -1;
	} else if (stage_flooded(&ch, "configuring the kernel", &flood)) {
		if (v->npatches)	/* the patched tree's Kconfig and scripts ran */
			stage_fail(v, "build-failed", flood.ptr);
		else
			stage_blame(r, FAULT_OURS, "%s", flood.ptr);
		ret = -1;
	} else if (!ret && ch.exit_code) {
		buf_addf(&r->infra, "configuring the kernel failed (see %s)", log_path);
		ret = -1;
	}
	sandbox_cmd_release(&cmd);
	buf_release(&flood);
	return ret;
}

/*
 * Copy the fragments into out/ (the sandbox sees only the tree and out):
 * configs/'s into all, the job's own (grow) into grown.
 */
static int stage_fragments(struct run *r, struct variant *v, struct buf *all, struct buf *grown,
			   char ***names, int *n)
{
	const char *variant = cfg_str("runner.config_variant");
	const char *fixed[] = { "base", strcmp(variant, "base") ? variant : NULL,
				v->coverage ? "gcov" : NULL };
	/* configs/'s, then the job's own: its files' and its controllers' options (kplan.h) */
	int nwant = 3 + 1;
	const char **want = xcalloc(nwant, sizeof(*want));
	struct buf src = BUF_INIT, dst = BUF_INIT, text = BUF_INIT;
	int ret = -1;

	memcpy(want, fixed, sizeof(fixed));
	want[nwant - 1] = *kplan_fragment(r, v) ? "grow" : NULL;
	for (int i = 0; i < nwant; i++) {
		if (!want[i])
			continue;
		buf_reset(&src);
		buf_reset(&dst);
		buf_reset(&text);
		buf_addf(&src, "%s/configs/%s.config", r->patches_dir, want[i]);
		buf_addf(&dst, "%s/bb-%s.config", v->out, want[i]);
		if (i == nwant - 1) {
			buf_addstr(&text, kplan_fragment(r, v));
		} else if (buf_read_file(&text, src.ptr)) {
			buf_addf(&r->infra, "cannot read config fragment '%s': %s", src.ptr,
				 strerror(errno));
			goto out;
		}
		/* out/ is the build's: never through a link it left there */
		if (job_write(r, dst.ptr, text.ptr, text.len)) {
			buf_addf(&r->infra, "cannot write '%s': %s", dst.ptr, safe_strerror(errno));
			goto out;
		}
		buf_addstr(i == nwant - 1 ? grown : all, text.ptr);
		buf_addch(i == nwant - 1 ? grown : all, '\n');
		*names = xrealloc(*names, (*n + 1) * sizeof(**names));
		buf_reset(&src);
		buf_addf(&src, "bb-%s.config", want[i]);
		(*names)[(*n)++] = buf_detach(&src, NULL);
	}
	ret = 0;
out:
	free(want);
	buf_release(&src);
	buf_release(&dst);
	buf_release(&text);
	return ret;
}

/*
 * 0 when every fragment option is in out/.config; else -1 (our fault,
 * saying which).  The .config is the configure step's output, read through
 * lib/safefile: one that is a link, a FIFO or huge is the tree's doing.
 */
static int check(struct run *r, struct variant *v, const char *frags, const char *grown)
{
	struct buf path = BUF_INIT, config = BUF_INIT, missing = BUF_INIT, why = BUF_INIT;
	int ret = -1;

	buf_addf(&path, "%s/.config", v->out);
	if (job_read(r, path.ptr, KCONFIG_MAX, &config)) {
		buf_addf(&why, "bugbridge refused to read out/.config: %s", safe_strerror(errno));
		if (errno == ENOENT || errno == EIO)
			buf_addf(&r->infra, "cannot read '%s': %s", path.ptr, strerror(errno));
		else if (v->npatches)
			stage_fail(v, "build-failed", why.ptr);
		else
			stage_blame(r, FAULT_OURS, "%s", why.ptr);
	} else if (kconf_missing(frags, config.ptr, &missing) ||
		   (v->npatches && kconf_missing(grown, config.ptr, &missing))) {
		stage_blame(r, FAULT_OURS, "config options did not stick: %s", missing.ptr);
	} else {
		/* the baseline's share of the job's options: its Kconfig may lack some */
		if (kconf_missing(grown, config.ptr, &missing)) {
			buf_addf(&why, "the base does not keep the job's %s", missing.ptr);
			stage_note(r, why.ptr);
		}
		ret = 0;
	}
	buf_release(&path);
	buf_release(&config);
	buf_release(&missing);
	buf_release(&why);
	return ret;
}

int kconfig_check(struct run *r, struct variant *v)
{
	struct buf frags = BUF_INIT, grown = BUF_INIT;
	char **names = NULL;
	int nnames = 0, ret = -1;

	if (!stage_fragments(r, v, &frags, &grown, &names, &nnames))
		ret = check(r, v, frags.ptr, grown.ptr);
	strv_free(names, nnames);
	buf_release(&frags);
	buf_release(&grown);
	return ret;
}

/* tinyconfig, the fragments merged, olddefconfig: in v->out, logged; 0 or -1 (r->infra, v). */
static int configure(struct run *r, struct variant *v, struct buf *frags, struct buf *grown)
{
	struct buf log_path = BUF_INIT;
	char **names = NULL;
	int nnames = 0, ret = -1;
	const char *tiny[] = { "make", "O=out", "ARCH=x86_64", "tinyconfig", NULL };
	const char *olddef[] = { "make", "O=out", "ARCH=x86_64", "olddefconfig", NULL };
	/* merge_config.sh makes its temporary files in the current directory */
	const char **merge = xcalloc(7 + 4, sizeof(*merge));
	const char *head[] = { "bash", "../scripts/kconfig/merge_config.sh", "-m", "-O", ".",
			       ".config" };

	buf_addf(&log_path, "%s/%s-configure.log", v->logs, v->name);
	if (stage_fragments(r, v, frags, grown, &names, &nnames))
		goto out;
	memcpy(merge, head, sizeof(head));
	for (int i = 0; i < nnames; i++)
		merge[6 + i] = names[i];
	if (sandboxed_make(r, v, tiny, false, log_path.ptr) ||
	    sandboxed_make(r, v, merge, true, log_path.ptr) ||
	    sandboxed_make(r, v, olddef, false, log_path.ptr)) {
		if (!r->infra.len && !v->verdict)	/* joblog.c may have said why */
			buf_addstr(&r->infra, "configuring the kernel was interrupted");
		goto out;
	}
	ret = 0;
out:
	free(merge);
	strv_free(names, nnames);
	buf_release(&log_path);
	return ret;
}

/*
 * The patched variant of a grown job was configured by kplan.c's probe, in
 * the same tree with the same fragments: that .config is written over the
 * seed's (the build's syncconfig takes it from there) instead of
 * configuring again, which costs as much as the probe did.  So is the
 * baseline's, when the patch changed no Kconfig file (the same Kconfig,
 * the same options: the same .config).
 */
static int probed(struct run *r, struct variant *v, struct buf *frags, struct buf *grown)
{
	struct buf path = BUF_INIT;
	char **names = NULL;
	int nnames = 0, ret = -1;

	if (!v->grown || !r->plan || !r->plan->config.len ||
	    (!v->npatches && !r->plan->same_kconfig))
		return -1;
	buf_addf(&path, "%s/.config", v->out);
	if (!stage_fragments(r, v, frags, grown, &names, &nnames) &&
	    !job_write(r, path.ptr, r->plan->config.ptr, r->plan->config.len))
		ret = 0;
	strv_free(names, nnames);
	buf_release(&path);
	return ret;
}

int kconfig_configure(struct run *r, struct variant *v)
{
	struct buf frags = BUF_INIT, grown = BUF_INIT;
	int ret = probed(r, v, &frags, &grown) ? configure(r, v, &frags, &grown) : 0;

	if (!ret)
		ret = check(r, v, frags.ptr, grown.ptr);
	buf_release(&frags);
	buf_release(&grown);
	return ret;
}

int kconfig_probe(struct run *r, struct variant *v, struct buf *config, struct buf *dropped)
{
	struct buf frags = BUF_INIT, grown = BUF_INIT, path = BUF_INIT;
	int ret = -1;

	if ((mkdir(v->out, 0755) && errno != EEXIST) || sandbox_give(v->out)) {
		buf_addf(&r->infra, "cannot create '%s': %s", v->out, strerror(errno));
		goto out;
	}
	if (configure(r, v, &frags, &grown))
		goto out;
	buf_addf(&path, "%s/.config", v->out);
	buf_reset(config);
	if (job_read(r, path.ptr, KCONFIG_MAX, config)) {
		/* the patched tree's Kconfig made it: a link or a FIFO is the patch's doing */
		buf_addf(&path, ": %s", safe_strerror(errno));
		stage_fail(v, "build-failed", path.ptr);
		goto out;
	}
	kconf_missing(frags.ptr, config->ptr, dropped);
	ret = 0;
out:
	buf_release(&frags);
	buf_release(&grown);
	buf_release(&path);
	return ret;
}
