/*
 * kprofile: gcov for exactly the objects a patch touches, and the check
 * after the build that each touched C file was compiled (see kplan.h).
 *
 * drivers/scsi profiles itself (the harness's "GCOV_PROFILE := y").  Any
 * other touched C file's object gets "GCOV_PROFILE_<obj>.o := y" appended
 * to its directory's Makefile (or Kbuild) in the patched tree: the file is
 * written anew and renamed over the old name, which breaks its hard link to
 * the pristine base, as GNU patch does.  Only that object's compiler
 * command changes, so only it is rebuilt (it is anyway: the patch changed
 * it).  A Makefile that turns gcov off for a directory or an object
 * (arch/x86/boot, the vDSO) is obeyed: that file is named, not measured.
 *
 * A header's lines run inside the objects that include it, so those are
 * profiled too, when at most INCLUDERS_MAX of them are outside drivers/scsi
 * (gcov's instrumentation costs a little everywhere it goes): kbuild's
 * .cmd files of the seed say which objects included it.  After the build,
 * the patched tree's .cmd files say which really did; a header included by
 * an object gcov did not profile is not measured (a line it never saw run
 * may have run there), and one that no object includes makes the job
 * "untested".
 */
#include "kplan.h"
#include "kplan_int.h"
#include "kbuild.h"
#include "stage.h"
#include "paths.h"
#include "apply.h"
#include "buf.h"
#include "xalloc.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INCLUDERS_MAX 64
#define CMD_MAX (1 << 20)	/* a .cmd file: a few KB to a few hundred */

/* drivers/scsi/NAME.o: the harness profiles it. */
static bool harness_profiled(const char *object)
{
	return !strncmp(object, "drivers/scsi/", 13) && !strchr(object + 13, '/');
}

/* ---- which objects' .cmd files list a header ---- */

struct scan {
	struct kplan *p;
	struct buf rel;			/* the directory being read, relative */
	struct buf text;
	char ***found;			/* per file of the plan: the objects */
	int *nfound;
};

static void scan_file(struct scan *s, int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	size_t len = strlen(name);

	if (fd < 0)
		return;
	buf_init(&s->text, CMD_MAX);
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && !buf_read_fd(&s->text, fd, CMD_MAX)) {
		for (int i = 0; i < s->p->nfiles; i++) {
			struct buf obj = BUF_INIT;

			if (s->p->files[i].kind != KF_HEADER ||
			    !kbuild_cmd_lists(s->text.ptr, s->p->files[i].path))
				continue;
			/* ".sd.o.cmd" in drivers/scsi: drivers/scsi/sd.o */
			buf_addf(&obj, "%s%s%.*s", s->rel.ptr, s->rel.len ? "/" : "",
				 (int)(len - 5), name + 1);
			s->found[i] = xreallocarray(s->found[i], s->nfound[i] + 1, sizeof(char *));
			s->found[i][s->nfound[i]++] = buf_detach(&obj, NULL);
		}
	}
	buf_release(&s->text);
	close(fd);
}

/* Every ".X.o.cmd" below fd_dir, never through a link (fd_dir is closed). */
static void scan_dir(struct scan *s, int fd_dir, int depth)
{
	DIR *d = fdopendir(fd_dir);
	struct dirent *e;

	if (!d) {
		close(fd_dir);
		return;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), keep = s->rel.len;

		if (e->d_type == DT_DIR && e->d_name[0] != '.' && depth < 12 &&
		    strcmp(e->d_name, "scripts") && strcmp(e->d_name, "tools")) {
			int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					O_CLOEXEC);

			buf_addf(&s->rel, "%s%s", keep ? "/" : "", e->d_name);
			if (fd >= 0)
				scan_dir(s, fd, depth + 1);
			buf_setlen(&s->rel, keep);
		} else if (e->d_name[0] == '.' && len > 7 && !strcmp(e->d_name + len - 6, ".o.cmd")) {
			scan_file(s, dirfd(d), e->d_name);
		}
	}
	closedir(d);
}

/* found[i]: the objects whose .cmd under root lists the plan's header i. */
static void includers(struct kplan *p, const char *root, char ***found, int *nfound)
{
	struct scan s = { .p = p, .found = found, .nfound = nfound };
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	scan_dir(&s, fd, 0);
	buf_release(&s.rel);
}

static bool any_header(const struct kplan *p)
{
	for (int i = 0; i < p->nfiles; i++)
		if (p->files[i].kind == KF_HEADER)
			return true;
	return false;
}

/* ---- the Makefile lines ---- */

static bool listed(char **list, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/* Append "GCOV_PROFILE_<obj> := y" for each object of dir (objects of one directory). */
static int write_lines(struct run *r, struct variant *v, const char *dir, struct buf *lines)
{
	struct buf path = BUF_INIT, tmp = BUF_INIT, text = BUF_INIT;
	int ret = -1;

	for (int i = 0; i < 2; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/%s/%s", v->tree, dir, i ? "Makefile" : "Kbuild");
		buf_reset(&text);
		if (!job_read(r, path.ptr, KPLAN_TEXT_MAX, &text))
			break;
	}
	buf_addf(&text, "\n# bugbridge: gcov for what this job's patch touches\n%s", lines->ptr);
	buf_addf(&tmp, "%s.bb-gcov", path.ptr);
	/* a new file renamed over the old: never written through its link to the base */
	if (!job_write(r, tmp.ptr, text.ptr, text.len) && !rename(tmp.ptr, path.ptr))
		ret = 0;
	else
		log_warn("runner: cannot add gcov lines to '%s': %s", path.ptr,
			 safe_strerror(errno));
	buf_release(&path);
	buf_release(&tmp);
	buf_release(&text);
	return ret;
}

/* Is obj's gcov turned off by its Makefile?  Then why says so. */
static bool gcov_off(struct run *r, struct variant *v, const char *object)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	const char *slash = strrchr(object, '/');
	bool off = false;

	for (int i = 0; i < 2 && !off; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/%.*s/%s", v->tree, (int)(slash - object), object,
			 i ? "Makefile" : "Kbuild");
		buf_reset(&text);
		off = !job_read(r, path.ptr, KPLAN_TEXT_MAX, &text) &&
		      kbuild_gcov_off(text.ptr, slash + 1);
	}
	buf_release(&path);
	buf_release(&text);
	return off;
}

/* The objects to profile, each once: ones gcov may not see are refused. */
static bool want(struct run *r, struct variant *v, char ***objs, int *n, const char *object)
{
	if (harness_profiled(object) || listed(*objs, *n, object))
		return true;
	if (gcov_off(r, v, object))
		return false;
	*objs = xreallocarray(*objs, *n + 1, sizeof(char *));
	(*objs)[(*n)++] = xstrdup(object);
	return true;
}

static void header_profile(struct run *r, struct variant *v, struct kfile *f, char **inc,
			   int ninc, char ***objs, int *n)
{
	struct buf why = BUF_INIT;
	int off = 0, extra = 0;

	for (int i = 0; i < ninc; i++)
		extra += !harness_profiled(inc[i]);
	for (int i = 0; i < ninc && extra <= INCLUDERS_MAX; i++) {
		if (!want(r, v, objs, n, inc[i])) {
			off++;
			continue;
		}
		f->includers = xreallocarray(f->includers, f->nincluders + 1, sizeof(char *));
		f->includers[f->nincluders++] = xstrdup(inc[i]);
	}
	if (extra > INCLUDERS_MAX)
		buf_addf(&why, "a header included by %d objects outside drivers/scsi; gcov profiles"
			 " at most %d", extra, INCLUDERS_MAX);
	else if (off)
		buf_addf(&why, "a header included by %d objects built without gcov", off);
	f->profiled = !why.len;
	free(f->why);
	f->why = why.len ? buf_detach(&why, NULL) : NULL;
	buf_release(&why);
}

static void seed_dir(struct run *r, struct buf *out)
{
	buf_reset(out);
	buf_addf(out, "%s/seed/%s", r->cache, r->seed_key_gcov);
	if (access(out->ptr, F_OK)) {
		buf_reset(out);
		buf_addf(out, "%s/seed/%s", r->cache, r->seed_key);
	}
}

/* Each directory's objects, as Makefile lines. */
static int write_all(struct run *r, struct variant *v, char **objs, int n)
{
	struct buf dir = BUF_INIT, lines = BUF_INIT;
	int ret = 0;

	for (int i = 0; i < n; i++) {
		const char *slash = strrchr(objs[i], '/');
		bool done = false;

		for (int j = 0; j < i && !done; j++)
			done = !strncmp(objs[j], objs[i], (size_t)(slash - objs[i]) + 1) &&
			       !strchr(objs[j] + (slash - objs[i]) + 1, '/');
		if (done)
			continue;	/* that directory was written with objs[j] */
		buf_reset(&dir);
		buf_add(&dir, objs[i], (size_t)(slash - objs[i]));
		buf_reset(&lines);
		for (int j = i; j < n; j++)
			if (!strncmp(objs[j], dir.ptr, dir.len) && objs[j][dir.len] == '/' &&
			    !strchr(objs[j] + dir.len + 1, '/'))
				buf_addf(&lines, "GCOV_PROFILE_%s := y\n", objs[j] + dir.len + 1);
		ret |= write_lines(r, v, dir.ptr, &lines);
	}
	buf_release(&dir);
	buf_release(&lines);
	return ret;
}

int kplan_profile(struct run *r, struct variant *v)
{
	struct kplan *p = r->plan;
	char ***found, **objs = NULL;
	int *nfound, nobjs = 0;
	struct buf seed = BUF_INIT;

	if (!v->coverage || !p)
		return 0;
	found = xcalloc(p->nfiles + 1, sizeof(*found));
	nfound = xcalloc(p->nfiles + 1, sizeof(*nfound));
	seed_dir(r, &seed);
	if (any_header(p))
		includers(p, seed.ptr, found, nfound);	/* the seed: our own build */
	for (int i = 0; i < p->nfiles; i++) {
		struct kfile *f = &p->files[i];

		if (f->kind == KF_SOURCE) {
			f->profiled = want(r, v, &objs, &nobjs, f->object);
			if (!f->profiled && !f->why)
				f->why = xstrdup("its Makefile builds it without gcov");
		} else if (f->kind == KF_HEADER) {
			header_profile(r, v, f, found[i], nfound[i], &objs, &nobjs);
		}
		strv_free(found[i], nfound[i]);
	}
	write_all(r, v, objs, nobjs);
	strv_free(objs, nobjs);
	free(found);
	free(nfound);
	buf_release(&seed);
	return 0;
}

/* A header's includers in the patched build against those profiled. */
static void header_built(struct kfile *f, char **inc, int ninc, struct buf *untested)
{
	int unprofiled = 0;

	if (!ninc) {
		buf_addf(untested, "%s%s: no object of this kernel includes it",
			 untested->len ? "\n" : "", f->path);
		return;
	}
	for (int i = 0; i < ninc; i++)
		if (!harness_profiled(inc[i]) && !listed(f->includers, f->nincluders, inc[i]))
			unprofiled++;
	if (unprofiled && f->profiled) {
		f->profiled = false;
		free(f->why);
		f->why = xstrdup("a header also included by objects gcov did not profile");
	}
}

static bool compiled(struct run *r, struct variant *v, const char *object)
{
	struct buf path = BUF_INIT;
	int fd;

	buf_addf(&path, "%s/%s", v->out, object);
	fd = job_open(r, path.ptr, SAFE_READ);
	buf_release(&path);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

int kplan_check_built(struct run *r, struct variant *v)
{
	struct kplan *p = r->plan;
	struct buf why = BUF_INIT;
	char ***found;
	int *nfound;

	if (!p)
		return 0;
	found = xcalloc(p->nfiles + 1, sizeof(*found));
	nfound = xcalloc(p->nfiles + 1, sizeof(*nfound));
	if (any_header(p))
		includers(p, v->out, found, nfound);	/* never through a link the build left */
	for (int i = 0; i < p->nfiles; i++) {
		struct kfile *f = &p->files[i];

		if ((f->kind == KF_SOURCE || f->kind == KF_ASM) && !compiled(r, v, f->object))
			buf_addf(&why, "%s%s: was not compiled, %s", why.len ? "\n" : "", f->path,
				 f->rule_unknown ? "and bugbridge cannot tell from its Makefiles which option"
				 " builds it" : "though the options its Makefiles name are set"
				 " (a condition bugbridge does not read)");
		else if (f->kind == KF_HEADER)
			header_built(f, found[i], nfound[i], &why);
		strv_free(found[i], nfound[i]);
	}
	if (why.len) {
		v->verdict = "untested";
		v->fault = FAULT_NONE;
		buf_reset(&v->detail);
		buf_addstr(&v->detail, why.ptr);
		log_info("runner: %s: untested: %s", v->name, why.ptr);
	}
	free(found);
	free(nfound);
	buf_release(&why);
	return 0;
}

int kplan_gcda_wanted(const struct run *r, char ***out, int *n)
{
	const struct kplan *p = r->plan;

	*out = NULL;
	*n = 0;
	for (int i = 0; p && i < p->nfiles; i++) {
		const struct kfile *f = &p->files[i];
		const char *objs[] = { f->object };
		char *const *list = f->kind == KF_HEADER ? f->includers : (char *const *)objs;
		int cnt = f->kind == KF_HEADER ? f->nincluders : (f->profiled && f->object);

		for (int j = 0; j < cnt; j++) {
			struct buf g = BUF_INIT;

			buf_add(&g, list[j], strlen(list[j]) - 2);
			buf_addstr(&g, ".gcda");
			if (harness_profiled(list[j]) || listed(*out, *n, g.ptr)) {
				buf_release(&g);
				continue;
			}
			*out = xreallocarray(*out, *n + 1, sizeof(char *));
			(*out)[(*n)++] = buf_detach(&g, NULL);
		}
	}
	return 0;
}
