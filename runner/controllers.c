/*
 * controllers: the host adapters a job's kernel is booted behind (issue 34).
 *
 * Each of QEMU's emulated HBAs the suite supports has a boot of its own in
 * suite/scenarios, with the same disk and CD behind it and the faults
 * injected on the QEMU side, so an error travels through the emulated
 * controller and the Linux driver's completion code.  Booting every one for
 * every job would cost a kernel config that builds every driver and a boot
 * each; so the patch says which: a file under a controller's "selects"
 * paths (drivers/scsi/megaraid/ for megasas) picks that controller, and any
 * other file (the midlayer, sd, sr, the block layer, or anything else) the
 * default set, the boots that judge a core change.  A job without a patch
 * (a baseline) runs the default set.  [runner] controllers overrides the
 * patch for every job (the driver mutation campaign sets it).
 *
 * Pure but for controllers_select(), which reads the candidate's patches.
 */
#include "controllers.h"
#include "run.h"
#include "kplan.h"
#include "apply.h"
#include "stage.h"
#include "buf.h"
#include "config.h"
#include "xalloc.h"
#include "log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool has(char *const *v, int n, const char *s, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(v[i]) == len && !strncmp(v[i], s, len))
			return true;
	return false;
}

/* "+++ b/drivers/scsi/sd.c\t2020-..." -> "drivers/scsi/sd.c" (len), or NULL. */
static const char *header_path(const char *line, size_t len, size_t *plen)
{
	const char *name = line + 4, *end = line + len, *slash;

	if (len >= 13 && !strncmp(name, "/dev/null", 9) && (len == 13 || name[9] == '\t'))
		return NULL;
	slash = memchr(name, '/', end - name);
	if (!slash)
		return NULL;
	*plen = strcspn(slash + 1, "\t\n");
	if (slash + 1 + *plen > end)
		*plen = end - slash - 1;
	return *plen ? slash + 1 : NULL;
}

void controllers_files(const char *patch, char ***files, int *n)
{
	const char *p = patch, *minus = NULL;
	size_t mlen = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p), plen = 0;
		const char *path;

		if (!strncmp(p, "--- ", 4)) {
			minus = header_path(p, len, &mlen);
		} else if (!strncmp(p, "+++ ", 4)) {
			path = header_path(p, len, &plen);
			if (!path) {		/* deleted: the old name */
				path = minus;
				plen = mlen;
			}
			if (path && !has(*files, *n, path, plen)) {
				*files = xrealloc(*files, (*n + 1) * sizeof(**files));
				(*files)[(*n)++] = xstrndup(path, plen);
			}
			minus = NULL;
		}
		p = nl ? nl + 1 : p + len;
	}
}

/* Is file under sel (a directory ending in '/', else the file itself)? */
static bool under(const char *file, const char *sel)
{
	size_t l = strlen(sel);

	if (l && sel[l - 1] == '/')
		return !strncmp(file, sel, l);
	return !strcmp(file, sel);
}

/* The boot of controller name, or -1. */
static int boot_of(const struct scenario *sc, const char *name, size_t len)
{
	for (int i = 0; i < sc->nboots; i++)
		if (sc->boots[i].controller && strlen(sc->boots[i].controller) == len &&
		    !strncmp(sc->boots[i].controller, name, len))
			return i;
	return -1;
}

static void pick_default(const struct scenario *sc, bool *keep)
{
	for (int i = 0; i < sc->nboots; i++)
		if (sc->boots[i].controller_default)
			keep[i] = true;
}

/* The override's words: names, "default", "all", "none". */
static int choose_override(const struct scenario *sc, const char *override, bool *keep,
			   struct buf *err)
{
	const char *p = override;

	while (*p) {
		size_t len = strcspn(p, ", \t");
		int b;

		if (!len) {
			p++;
			continue;
		}
		if (len == 7 && !strncmp(p, "default", 7)) {
			pick_default(sc, keep);
		} else if (len == 3 && !strncmp(p, "all", 3)) {
			for (int i = 0; i < sc->nboots; i++)
				keep[i] = true;
		} else if (len == 4 && !strncmp(p, "none", 4)) {
			;
		} else if ((b = boot_of(sc, p, len)) >= 0) {
			keep[b] = true;
		} else {
			buf_addf(err, "[runner] controllers: no controller '%.*s' in the scenarios"
				 " (known:", (int)len, p);
			for (int i = 0; i < sc->nboots; i++)
				if (sc->boots[i].controller)
					buf_addf(err, " %s", sc->boots[i].controller);
			buf_addstr(err, ")");
			return -1;
		}
		p += len;
	}
	return 0;
}

/* The controller whose selects hold file, or -1. */
static int picked_by(const struct scenario *sc, const char *file)
{
	for (int i = 0; i < sc->nboots; i++)
		for (int j = 0; sc->boots[i].controller && j < sc->boots[i].nselects; j++)
			if (under(file, sc->boots[i].selects[j]))
				return i;
	return -1;
}

static void say(const struct scenario *sc, const bool *keep, const char *reason, struct buf *why)
{
	int n = 0;

	for (int i = 0; i < sc->nboots; i++)
		if (keep[i] && sc->boots[i].controller)
			buf_addf(why, "%s%s", n++ ? ", " : "controllers: ", sc->boots[i].controller);
	if (!n)
		buf_addstr(why, "controllers: none");
	buf_addf(why, " (%s)", reason);
}

int controllers_choose(const struct scenario *sc, char *const *files, int nfiles,
		       const char *override, bool *keep, struct buf *why, struct buf *err)
{
	const char *core = NULL, *driver = NULL;

	for (int i = 0; i < sc->nboots; i++)
		keep[i] = !sc->boots[i].controller;
	if (override && *override) {
		if (choose_override(sc, override, keep, err))
			return -1;
		say(sc, keep, "[runner] controllers", why);
		return 0;
	}
	for (int i = 0; i < nfiles; i++) {
		int b = picked_by(sc, files[i]);
		if (b >= 0) {
			keep[b] = true;
			driver = driver ? driver : files[i];
		} else {
			core = core ? core : files[i];
		}
	}
	if (core || !nfiles)
		pick_default(sc, keep);
	if (!nfiles)
		say(sc, keep, "no patch: the default set", why);
	else if (!core)
		say(sc, keep, "the patch changes only their drivers", why);
	else if (!driver)
		say(sc, keep, "the default set: the patch changes the core", why);
	else
		say(sc, keep, "the default set for the core and the drivers the patch changes", why);
	return 0;
}

/* One fragment's "CONFIG_X=y" lines, asked of kplan for controller ctl. */
static int ask_fragment(struct run *r, const char *name, const char *ctl)
{
	struct buf path = BUF_INIT, text = BUF_INIT, why = BUF_INIT;
	char *line, *save = NULL;
	int ret = -1;

	buf_addf(&path, "%s/configs/%s.config", r->patches_dir, name);
	if (buf_read_file(&text, path.ptr)) {
		stage_blame(r, FAULT_OURS, "cannot read config fragment '%s': %s", path.ptr,
			    strerror(errno));
		goto out;
	}
	buf_addf(&why, "controller %s", ctl);
	for (line = strtok_r(text.ptr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(line);

		if (!*line || *line == '#')
			continue;
		if (len < 3 || strcmp(line + len - 2, "=y") ||
		    (line[len - 2] = '\0', kplan_request(r, line, why.ptr))) {
			stage_blame(r, FAULT_OURS, "config fragment '%s': '%s' is not CONFIG_NAME=y",
				    path.ptr, line);
			goto out;
		}
	}
	ret = 0;
out:
	buf_release(&path);
	buf_release(&text);
	buf_release(&why);
	return ret;
}

/*
 * The chosen boots' drivers grow the job's config as a patch's files do
 * (kplan.h): each fragment's options are asked for, so a controller's job
 * builds on the standard seed's objects, its baseline gets the same
 * drivers, and no seed is kept per set of controllers.  r->configs names
 * the fragments, each once.
 */
static int keep_configs(struct run *r)
{
	for (int i = 0; i < r->scenario->nboots; i++) {
		const char *c = r->scenario->boots[i].config;

		if (!c || has(r->configs, r->nconfigs, c, strlen(c)))
			continue;
		r->configs = xrealloc(r->configs, (r->nconfigs + 1) * sizeof(*r->configs));
		r->configs[r->nconfigs++] = xstrdup(c);
		if (ask_fragment(r, c, r->scenario->boots[i].controller ?
				 r->scenario->boots[i].controller : r->scenario->boots[i].name))
			return -1;
	}
	return 0;
}

int controllers_select(struct run *r)
{
	struct buf text = BUF_INIT, why = BUF_INIT, err = BUF_INIT;
	char **files = NULL;
	int nfiles = 0, ret = -1;
	bool *keep = xcalloc(r->scenario->nboots ? r->scenario->nboots : 1, sizeof(*keep));

	for (int i = 0; i < r->npatches; i++) {
		buf_reset(&text);
		/* the job's own copy (apply_load_candidate wrote it) */
		if (buf_read_file(&text, r->patches[i].path)) {
			buf_addf(&r->infra, "cannot read '%s': %s", r->patches[i].path,
				 strerror(errno));
			goto out;
		}
		controllers_files(text.ptr, &files, &nfiles);
	}
	if (controllers_choose(r->scenario, files, nfiles, cfg_str("runner.controllers"), keep,
			       &why, &err)) {
		stage_blame(r, FAULT_OURS, "%s", err.ptr);
		goto out;
	}
	scenario_keep(r->scenario, keep);
	if (keep_configs(r))
		goto out;
	free(r->controllers_note);
	r->controllers_note = buf_detach(&why, NULL);
	log_info("job %lld: %s", (long long)r->job->id, r->controllers_note);
	ret = 0;
out:
	strv_free(files, nfiles);
	free(keep);
	buf_release(&text);
	buf_release(&why);
	buf_release(&err);
	return ret;
}
