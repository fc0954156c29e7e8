/*
 * scenario: reading kernel-patches/suite/scenarios, the data file that says
 * which disk images to create, which QEMU arguments and kernel command-line
 * tokens each boot of the suite needs, and which tests it runs.  The grammar
 * is documented at the top of that file; this parser refuses anything it
 * does not know, so a scenario written for a newer runner fails loudly.
 * Parsing is pure (and fuzzable); making images is the only I/O.
 */
#include "scenario.h"
#include "paths.h"
#include "apply.h"
#include "buf.h"
#include "xalloc.h"
#include "safefile.h"
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCENARIO_MAX_IMAGE (1LL << 32)

static void strv_push(char ***v, int *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
}

static void boot_release(struct scenario_boot *b)
{
	free(b->name);
	for (int j = 0; j < b->nimages; j++)
		free(b->images[j].name);
	free(b->images);
	strv_free(b->qemu, b->nqemu);
	strv_free(b->cmdline, b->ncmdline);
	strv_free(b->tests, b->ntests);
	free(b->emulated);
	free(b->controller);
	free(b->config);
	strv_free(b->selects, b->nselects);
}

void scenario_keep(struct scenario *sc, const bool *keep)
{
	int n = 0;

	for (int i = 0; i < sc->nboots; i++) {
		if (keep[i])
			sc->boots[n++] = sc->boots[i];
		else
			boot_release(&sc->boots[i]);
	}
	sc->nboots = n;
}

void scenario_release(struct scenario *sc)
{
	for (int i = 0; sc && i < sc->nboots; i++)
		boot_release(&sc->boots[i]);
	if (sc) {
		free(sc->boots);
		memset(sc, 0, sizeof(*sc));
	}
}

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

/* A source path of the kernel tree: relative, no "..", no empty part. */
static bool valid_path(const char *s)
{
	const char *p = s;

	if (!*s || *s == '/')
		return false;
	while (*p) {
		size_t l = strcspn(p, "/");
		if (!l && p[l])
			return false;
		if (l == 2 && !strncmp(p, "..", 2))
			return false;
		for (size_t i = 0; i < l; i++)
			if (!isalnum((unsigned char)p[i]) && !strchr("-_.+", p[i]))
				return false;
		p += l + (p[l] == '/');
	}
	return true;
}

/* Split a line into tokens (in place). */
static int tokens(char *line, char **tok, int max)
{
	int n = 0;
	char *p = line;

	while (*p && n < max) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
	return (*p && n == max) ? -1 : n;
}

static int parse_line(struct scenario *sc, char **tok, int n, bool *versioned, struct buf *why)
{
	struct scenario_boot *b = sc->nboots ? &sc->boots[sc->nboots - 1] : NULL;
	const char *d = tok[0];

	if (!*versioned) {
		if (strcmp(d, "version") || n != 2 || strcmp(tok[1], "1"))
			return buf_addstr(why, "the file must start with \"version 1\""), -1;
		*versioned = true;
		return 0;
	}
	if (!strcmp(d, "boot")) {
		if (n != 2 || !valid_name(tok[1]))
			return buf_addstr(why, "boot takes one NAME"), -1;
		sc->boots = xrealloc(sc->boots, (sc->nboots + 1) * sizeof(*sc->boots));
		b = &sc->boots[sc->nboots++];
		memset(b, 0, sizeof(*b));
		b->name = xstrdup(tok[1]);
		return 0;
	}
	if (!b)
		return buf_addf(why, "'%s' before any boot", d), -1;
	if (!strcmp(d, "image")) {
		char *end;
		long long size;
		if (n != 4 || !valid_name(tok[1]))
			return buf_addstr(why, "image takes NAME SIZE FILL"), -1;
		errno = 0;
		size = strtoll(tok[2], &end, 10);
		if (errno || *end || size <= 0 || size > SCENARIO_MAX_IMAGE || size % 512)
			return buf_addf(why, "bad image size '%s'", tok[2]), -1;
		if (strcmp(tok[3], "zero") && strcmp(tok[3], "lba-pattern"))
			return buf_addf(why, "unknown image fill '%s'", tok[3]), -1;
		b->images = xrealloc(b->images, (b->nimages + 1) * sizeof(*b->images));
		b->images[b->nimages].name = xstrdup(tok[1]);
		b->images[b->nimages].size = size;
		b->images[b->nimages].lba_pattern = !strcmp(tok[3], "lba-pattern");
		b->nimages++;
	} else if (!strcmp(d, "qemu")) {
		for (int i = 1; i < n; i++)
			strv_push(&b->qemu, &b->nqemu, tok[i]);
	} else if (!strcmp(d, "cmdline")) {
		for (int i = 1; i < n; i++)
			strv_push(&b->cmdline, &b->ncmdline, tok[i]);
	} else if (!strcmp(d, "timeout")) {
		char *end;
		long t = n == 2 ? strtol(tok[1], &end, 10) : 0;
		if (n != 2 || *end || t <= 0 || t > 86400)
			return buf_addstr(why, "timeout takes SECONDS"), -1;
		b->timeout = (int)t;
	} else if (!strcmp(d, "test")) {
		if (n < 2 || n > 3 || !valid_name(tok[1]) || (n == 3 && strcmp(tok[2], "emulated")))
			return buf_addstr(why, "test takes one NAME and maybe \"emulated\""), -1;
		b->emulated = xrealloc(b->emulated, (b->ntests + 1) * sizeof(*b->emulated));
		b->emulated[b->ntests] = n == 3;
		strv_push(&b->tests, &b->ntests, tok[1]);
	} else if (!strcmp(d, "controller")) {
		if (n < 2 || n > 3 || !valid_name(tok[1]) || (n == 3 && strcmp(tok[2], "default")) ||
		    b->controller)
			return buf_addstr(why, "controller takes one NAME and maybe \"default\""), -1;
		b->controller = xstrdup(tok[1]);
		b->controller_default = n == 3;
	} else if (!strcmp(d, "config")) {
		if (n != 2 || !valid_name(tok[1]) || b->config)
			return buf_addstr(why, "config takes one FRAGMENT"), -1;
		b->config = xstrdup(tok[1]);
	} else if (!strcmp(d, "selects")) {
		for (int i = 1; i < n; i++) {
			if (!valid_path(tok[i]))
				return buf_addf(why, "bad source path '%s'", tok[i]), -1;
			strv_push(&b->selects, &b->nselects, tok[i]);
		}
	} else if (!strcmp(d, "busybox-applets")) {
		/* our initramfs carries only /bin/busybox and /bin/sh: nothing to do */
	} else {
		return buf_addf(why, "unknown directive '%s'", d), -1;
	}
	return 0;
}

int scenario_parse(const char *text, struct scenario *sc, struct buf *err)
{
	struct buf line = BUF_INIT, why = BUF_INIT;
	const char *p = text;
	bool versioned = false;
	int lineno = 0, ret = 0;

	memset(sc, 0, sizeof(*sc));
	while (*p && !ret) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *tok[256];
		int n;

		lineno++;
		buf_reset(&line);
		buf_add(&line, p, len);
		p = nl ? nl + 1 : p + len;
		n = tokens(line.ptr, tok, 256);
		if (n < 0) {
			buf_addstr(&why, "too many tokens");
			ret = -1;
		} else if (n == 0 || tok[0][0] == '#') {
			continue;
		} else {
			ret = parse_line(sc, tok, n, &versioned, &why);
		}
		if (ret)
			buf_addf(err, "line %d: %s", lineno, why.ptr);
	}
	if (!ret && !sc->nboots) {
		buf_addstr(err, versioned ? "no boot in the file" : "empty file");
		ret = -1;
	}
	for (int i = 0; !ret && i < sc->nboots; i++) {
		const struct scenario_boot *b = &sc->boots[i];
		if (!b->controller && (b->config || b->nselects)) {
			buf_addf(err, "boot %s: config and selects belong to a controller's boot",
				 b->name);
			ret = -1;
		}
		for (int j = 0; !ret && j < i; j++)
			if (b->controller && sc->boots[j].controller &&
			    !strcmp(b->controller, sc->boots[j].controller)) {
				buf_addf(err, "controller %s has two boots", b->controller);
				ret = -1;
			}
	}
	if (ret)
		scenario_release(sc);
	buf_release(&line);
	buf_release(&why);
	return ret;
}

int scenario_load(const char *path, struct scenario *sc, struct buf *err)
{
	struct buf text = BUF_INIT, why = BUF_INIT;
	int ret = -1;

	if (buf_read_file(&text, path)) {
		buf_addf(err, "cannot read '%s': %s", path, strerror(errno));
	} else if (scenario_parse(text.ptr, sc, &why)) {
		buf_addf(err, "%s: %s", path, why.ptr);
	} else {
		ret = 0;
	}
	buf_release(&text);
	buf_release(&why);
	return ret;
}

const struct scenario_boot *scenario_boot_for(const struct scenario *sc, const char *name)
{
	size_t len = strlen(name);

	for (int i = 0; i < sc->nboots; i++)
		for (int j = 0; j < sc->boots[i].ntests; j++) {
			const char *t = sc->boots[i].tests[j];
			if (!strcmp(t, name) || (!strncmp(t, name, len) && t[len] == '-'))
				return &sc->boots[i];
		}
	return NULL;
}

/*
 * The images dir is the build user's (QEMU writes the images): a file of
 * it is opened through lib/safefile, never through a link left there.
 */
static int make_image(const struct scenario_image *im, const char *path, struct buf *err)
{
	int fd = safe_open_path(path, SAFE_WRITE);
	unsigned char sector[512];
	int ret = 0;

	if (fd < 0) {
		buf_addf(err, "cannot create '%s': %s", path, safe_strerror(errno));
		return -1;
	}
	if (!im->lba_pattern) {
		if (ftruncate(fd, im->size))
			ret = -1;
	} else {
		for (long long lba = 0; lba < im->size / 512 && !ret; lba++) {
			for (int k = 0; k < 64; k++)
				for (int byte = 0; byte < 8; byte++)
					sector[k * 8 + byte] = (uint64_t)lba >> (8 * byte);
			if (write(fd, sector, sizeof(sector)) != (ssize_t)sizeof(sector))
				ret = -1;
		}
	}
	if (close(fd))
		ret = -1;
	if (ret)
		buf_addf(err, "cannot write '%s': %s", path, strerror(errno));
	return ret;
}

int scenario_make_images(const struct scenario_boot *b, const char *dir, struct buf *err)
{
	struct buf path = BUF_INIT;
	int ret = 0;

	if (mkdir_p(dir, 0755)) {
		buf_addf(err, "cannot create '%s'", dir);
		return -1;
	}
	for (int i = 0; i < b->nimages && !ret; i++) {
		buf_reset(&path);
		buf_addf(&path, "%s/%s.img", dir, b->images[i].name);
		ret = make_image(&b->images[i], path.ptr, err);
	}
	buf_release(&path);
	return ret;
}

void scenario_append(const struct scenario_boot *b, const char *only, struct buf *out)
{
	buf_addstr(out, "console=ttyS0 panic=-1 oops=panic loglevel=7");
	for (int i = 0; i < b->ncmdline; i++)
		buf_addf(out, " %s", b->cmdline[i]);
	if (only)
		buf_addf(out, " bbsuite.only=%s", only);
}

void scenario_subst(const struct scenario_boot *b, const char *arg, const char *dir,
		    struct buf *out)
{
	const char *p = arg;

	while (*p) {
		bool done = false;
		if (*p == '@') {
			for (int i = 0; i < b->nimages && !done; i++) {
				size_t len = strlen(b->images[i].name);
				if (!strncmp(p + 1, b->images[i].name, len) && p[1 + len] == '@') {
					buf_addf(out, "%s/%s.img", dir, b->images[i].name);
					p += len + 2;
					done = true;
				}
			}
		}
		if (!done)
			buf_addch(out, *p++);
	}
}
