/*
 * initramfs: the guest's root file system, written as a newc cpio.
 *
 * Written here rather than with cpio(1) so the archive holds exactly what
 * we list (device nodes included, with no privileges needed) and nothing
 * from the host by accident.  It is left uncompressed: the kernel unpacks
 * a plain newc archive as well as a gzipped one, and skipping gzip saves
 * time on every boot of the suite.
 *
 * Contents: /init (kernel-patches/suite/init, a busybox sh script),
 * /bin/busybox (busybox-static) with /bin/sh, /bin/bbsuite, /bbsuite, and
 * the usual empty mount points plus /dev/console.
 */
#include "run.h"
#include "boot.h"
#include "buf.h"
#include "log.h"
#include "wfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void header(struct buf *b, unsigned ino, unsigned mode, unsigned nlink, size_t size,
		   unsigned rmaj, unsigned rmin, size_t namesize)
{
	buf_addf(b, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 ino, mode, 0u, 0u, nlink, 0u, (unsigned)size, 0u, 0u, rmaj, rmin,
		 (unsigned)namesize, 0u);
}

static void pad4(struct buf *b)
{
	while (b->len % 4)
		buf_addch(b, '\0');
}

static int add_entry(struct buf *b, unsigned ino, const struct cpio_entry *e)
{
	struct buf content = BUF_INIT;
	size_t namesize = strlen(e->name) + 1;
	int ret = -1;

	if (S_ISREG(e->mode) && e->src) {
		if (buf_read_file(&content, e->src)) {
			error("initramfs: cannot read '%s': %s", e->src, strerror(errno));
			goto out;
		}
	} else if (e->data) {
		buf_addstr(&content, e->data);
	}
	header(b, ino, e->mode, S_ISDIR(e->mode) ? 2 : 1, content.len, e->rdev_major,
	       e->rdev_minor, namesize);
	buf_add(b, e->name, namesize);
	pad4(b);
	buf_add(b, content.ptr, content.len);
	pad4(b);
	ret = 0;
out:
	buf_release(&content);
	return ret;
}

int cpio_write(const char *path, const struct cpio_entry *entries, int n)
{
	static const struct cpio_entry trailer = { "TRAILER!!!", 0, NULL, NULL, 0, 0 };
	struct buf b = BUF_INIT;
	int ret = -1;

	for (int i = 0; i < n; i++)
		if (add_entry(&b, 300000 + i, &entries[i]))
			goto out;
	if (add_entry(&b, 0, &trailer))
		goto out;
	/* whole or not at all: a boot takes an initramfs that is there */
	if (write_file(path, b.ptr, b.len, WF_ATOMIC)) {
		error("initramfs: cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	buf_release(&b);
	return ret;
}

int initramfs_make(struct run *r, const char *path)
{
	struct buf init = BUF_INIT;
	int ret;

	buf_addf(&init, "%s/suite/init", r->patches_dir);
	{
		const struct cpio_entry entries[] = {
			{ "bin", S_IFDIR | 0755, NULL, NULL, 0, 0 },
			{ "sbin", S_IFDIR | 0755, NULL, NULL, 0, 0 },
			{ "dev", S_IFDIR | 0755, NULL, NULL, 0, 0 },
			{ "dev/console", S_IFCHR | 0600, NULL, NULL, 5, 1 },
			{ "dev/null", S_IFCHR | 0666, NULL, NULL, 1, 3 },
			{ "proc", S_IFDIR | 0755, NULL, NULL, 0, 0 },
			{ "sys", S_IFDIR | 0755, NULL, NULL, 0, 0 },
			{ "tmp", S_IFDIR | 01777, NULL, NULL, 0, 0 },
			{ "mnt", S_IFDIR | 0755, NULL, NULL, 0, 0 },
			{ "run", S_IFDIR | 0755, NULL, NULL, 0, 0 },
			{ "root", S_IFDIR | 0700, NULL, NULL, 0, 0 },
			{ "etc", S_IFDIR | 0755, NULL, NULL, 0, 0 },
			{ "bin/busybox", S_IFREG | 0755, "/bin/busybox", NULL, 0, 0 },
			{ "bin/sh", S_IFLNK | 0777, NULL, "busybox", 0, 0 },
			{ "bin/bbsuite", S_IFREG | 0755, r->suite_bin, NULL, 0, 0 },
			{ "bbsuite", S_IFLNK | 0777, NULL, "bin/bbsuite", 0, 0 },
			{ "init", S_IFREG | 0755, init.ptr, NULL, 0, 0 },
		};
		ret = cpio_write(path, entries, sizeof(entries) / sizeof(*entries));
	}
	if (ret)
		buf_addf(&r->infra, "cannot write the initramfs '%s'", path);
	buf_release(&init);
	return ret;
}
