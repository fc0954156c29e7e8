/*
 * wfile: write a whole file, in place or by a rename, with fsync where the
 * caller says it matters.  About nine hand-written ways to do this (fopen
 * and fprintf, open and a write loop, with and without checking close)
 * were one each before (issue 26).
 */
#include "wfile.h"
#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int unlink_fail(const char *tmp)
{
	int e = errno;

	unlink(tmp);
	errno = e;
	return -1;
}

/* The directory holding path, fsync'd: the rename in it is then durable. */
static int sync_dir(const char *path)
{
	struct buf dir = BUF_INIT;
	const char *slash = strrchr(path, '/');
	int fd, ret;

	buf_add(&dir, path, slash ? (size_t)(slash - path + 1) : 0);
	fd = open(dir.len ? dir.ptr : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	buf_release(&dir);
	if (fd < 0)
		return -1;
	ret = fsync(fd);
	close(fd);
	return ret;
}

/* Write, sync if asked, close (always); -1 and errno on the first failure. */
static int write_fd(int fd, const void *data, size_t len, int flags)
{
	int e = 0;

	if (write_in_full(fd, data, len) || ((flags & WF_SYNC) && fsync(fd)))
		e = errno;
	if (close(fd) && !e)	/* NFS and tmpfs may say ENOSPC only here */
		e = errno;
	errno = e;
	return e ? -1 : 0;
}

int write_file(const char *path, const void *data, size_t len, int flags)
{
	static unsigned counter;	/* runner threads each get their own name */
	char tmp[4096];
	int fd;

	if (!(flags & WF_ATOMIC)) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
		return fd < 0 ? -1 : write_fd(fd, data, len, flags);
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp-%d-%u", path, (int)getpid(),
		     __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED)) >=
	    (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (write_fd(fd, data, len, flags))
		return unlink_fail(tmp);
	if (rename(tmp, path))
		return unlink_fail(tmp);
	if ((flags & WF_SYNC) && sync_dir(path))
		return -1;
	return 0;
}
