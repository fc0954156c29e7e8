/*
 * safefile: opening a file below a trusted directory without trusting
 * anything below it.
 *
 * Issue 23: a build that, after vmlinux linked, replaced out/drivers/scsi
 * with a symlink made the root runner write the guest's gcov files outside
 * the job's tree: O_NOFOLLOW guards only the last component.  Here every
 * component is guarded.  openat2(2) does it in one call
 * (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS from the root's fd); a kernel
 * without it (before 5.6, or a seccomp filter saying ENOSYS) gets the same
 * walk by hand: each directory opened O_PATH | O_NOFOLLOW from its parent's
 * fd and looked at with fstat, so nothing can be swapped between the look
 * and the use.
 *
 * What is found is then looked at before it is used: a read opens O_PATH
 * first and reopens the very inode (/proc/self/fd) only when it is a
 * regular file, so a FIFO or a device is never opened for reading; a write
 * opens O_NONBLOCK (a FIFO without a reader fails at once, with one it is
 * refused before a byte is written) and truncates only after the checks.
 */
#include "safefile.h"
#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool force_walk;

void safe_force_walk(bool on)
{
	force_walk = on;
}

const char *safe_strerror(int err)
{
	switch (err) {
	case ELOOP:
		return "a symbolic link is on its path";
	case EXDEV:
		return "its path leads outside the tree";
	case ENXIO:
		return "not a regular file (a FIFO, a device or a socket)";
	case EMLINK:
		return "it has other hard links";
	case EFBIG:
		return "larger than bugbridge reads";
	default:
		return strerror(err);
	}
}

/* rel must stay below its root by its words alone: no "..", not absolute, not empty. */
static bool rel_ok(const char *rel)
{
	const char *p = rel;

	if (!*rel || *rel == '/')
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 2 && !strncmp(p, "..", 2))
			return false;
		p += n;
		p += *p == '/';
	}
	return true;
}

static int close_keep_errno(int fd)
{
	int e = errno;

	if (fd >= 0)
		close(fd);
	errno = e;
	return -1;
}

/* One component, never followed: a directory unless last. */
static int step(int dir, const char *name, bool last, int flags, mode_t mode)
{
	struct stat st;
	int fd = openat(dir, name, last ? flags | O_NOFOLLOW : O_PATH | O_NOFOLLOW | O_CLOEXEC,
			last && (flags & O_CREAT) ? mode : 0);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		return close_keep_errno(fd);
	if (S_ISLNK(st.st_mode)) {	/* O_PATH | O_NOFOLLOW opens the link itself */
		close(fd);
		errno = ELOOP;
		return -1;
	}
	if (!last && !S_ISDIR(st.st_mode)) {
		close(fd);
		errno = ENOTDIR;
		return -1;
	}
	return fd;
}

/* Without openat2: rel one component at a time from the root's fd. */
static int walk(int root, const char *rel, int flags, mode_t mode)
{
	char *copy = strdup(rel), *p, *slash;
	int dir = dup(root), fd = -1;

	if (!copy || dir < 0)
		goto out;
	for (p = copy; (slash = strchr(p, '/')); p = slash + 1) {
		int next;
		*slash = '\0';
		if (!*p || !strcmp(p, "."))
			continue;
		next = step(dir, p, false, 0, 0);
		if (next < 0)
			goto out;
		close(dir);
		dir = next;
	}
	fd = *p ? step(dir, p, true, flags, mode) : -1;
	if (!*p)
		errno = EISDIR;
out:
	free(copy);
	close_keep_errno(dir);
	return fd;
}

static int resolve(const char *root, const char *rel, int flags, mode_t mode)
{
	struct open_how how = { .flags = flags | O_NOFOLLOW | O_CLOEXEC,
				.mode = (flags & O_CREAT) ? mode : 0,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
					   RESOLVE_NO_MAGICLINKS };
	int dir, fd = -1;

	if (!rel_ok(rel)) {
		errno = EXDEV;
		return -1;
	}
	dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);	/* the root itself is ours */
	if (dir < 0)
		return -1;
	if (!force_walk)
		fd = syscall(SYS_openat2, dir, rel, &how, sizeof(how));
	if (force_walk || (fd < 0 && errno == ENOSYS))
		fd = walk(dir, rel, flags | O_CLOEXEC, mode);
	close_keep_errno(dir);
	return fd;
}

/* A read: look with O_PATH, then open that inode only if it is a regular file. */
static int open_read(const char *root, const char *rel)
{
	struct stat st;
	char self[64];
	int path = resolve(root, rel, O_PATH, 0), fd;

	if (path < 0)
		return -1;
	if (fstat(path, &st))
		return close_keep_errno(path);
	if (!S_ISREG(st.st_mode)) {
		close(path);
		/* O_PATH | O_NOFOLLOW opens a last-component link itself */
		errno = S_ISDIR(st.st_mode) ? EISDIR : S_ISLNK(st.st_mode) ? ELOOP : ENXIO;
		return -1;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", path);
	fd = open(self, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	close_keep_errno(path);
	return fd;
}

static int open_write(const char *root, const char *rel, bool append)
{
	struct stat st;
	int fd = resolve(root, rel, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY |
			 (append ? O_APPEND : 0), 0644);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		return close_keep_errno(fd);
	if (!S_ISREG(st.st_mode) || st.st_nlink > 1) {
		close(fd);
		errno = S_ISREG(st.st_mode) ? EMLINK : ENXIO;
		return -1;
	}
	if ((!append && ftruncate(fd, 0)) || fcntl(fd, F_SETFL, append ? O_APPEND : 0))
		return close_keep_errno(fd);
	return fd;
}

int safe_open(const char *root, const char *rel, enum safe_how how)
{
	return how == SAFE_READ ? open_read(root, rel) : open_write(root, rel, how == SAFE_APPEND);
}

int safe_read(const char *root, const char *rel, size_t max, struct buf *out)
{
	struct stat st;
	int fd = safe_open(root, rel, SAFE_READ), ret;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		return close_keep_errno(fd);
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		errno = EFBIG;
		return -1;
	}
	/* it may grow while we read: the cap holds for what we read */
	ret = buf_read_fd(out, fd, max);
	if (ret)
		return close_keep_errno(fd);
	close(fd);
	return 0;
}

int safe_write(const char *root, const char *rel, const void *data, size_t len)
{
	int fd = safe_open(root, rel, SAFE_WRITE), err = 0;

	if (fd < 0)
		return -1;
	if (write_in_full(fd, data, len))
		err = errno;
	if (close(fd) && !err)	/* NFS and tmpfs may say ENOSPC only here */
		err = errno;
	errno = err;
	return err ? -1 : 0;
}

int safe_utimens(const char *root, const char *rel, const struct timespec times[2])
{
	int fd = safe_open(root, rel, SAFE_READ), err = 0;

	if (fd < 0)
		return -1;
	if (futimens(fd, times))
		err = errno;
	close(fd);
	errno = err;
	return err ? -1 : 0;
}

int safe_copy_fd(int in, int out, size_t max)
{
	char chunk[65536];
	size_t total = 0;
	ssize_t n;

	while ((n = read(in, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		total += n;
		if (total > max) {
			errno = EFBIG;
			return -1;
		}
		if (write_in_full(out, chunk, n))
			return -1;
	}
	return 0;
}

/* "/a/b/c" -> root "/a/b", rel "c"; "c" -> ".", "c". */
static const char *split(const char *path, struct buf *root)
{
	const char *slash = strrchr(path, '/');

	buf_reset(root);
	if (!slash)
		buf_addstr(root, ".");
	else if (slash == path)
		buf_addstr(root, "/");
	else
		buf_add(root, path, slash - path);
	return slash ? slash + 1 : path;
}

int safe_open_path(const char *path, enum safe_how how)
{
	struct buf root = BUF_INIT;
	const char *rel = split(path, &root);
	int fd = safe_open(root.ptr, rel, how), e = errno;

	buf_release(&root);
	errno = e;
	return fd;
}

int safe_read_path(const char *path, size_t max, struct buf *out)
{
	struct buf root = BUF_INIT;
	const char *rel = split(path, &root);
	int ret = safe_read(root.ptr, rel, max, out), e = errno;

	buf_release(&root);
	errno = e;
	return ret;
}

const char *safe_rel(const char *root, const char *path)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (strncmp(path, root, n) || path[n] != '/')
		return NULL;
	path += n;
	while (*path == '/')
		path++;
	return path;
}
