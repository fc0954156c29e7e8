/*
 * buf: growable NUL-terminated byte buffer with an optional size cap.
 * See buf.h for the contract.
 */
#include "buf.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char buf_empty[1];

void buf_init(struct buf *b, size_t cap)
{
	b->ptr = buf_empty;
	b->len = 0;
	b->alloc = 0;
	b->cap = cap;
	b->overflow = false;
}

void buf_release(struct buf *b)
{
	size_t cap = b->cap;

	if (b->alloc)
		free(b->ptr);
	buf_init(b, cap);
}

void buf_reset(struct buf *b)
{
	buf_setlen(b, 0);
	b->overflow = false;
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *ret;

	if (!b->alloc) {
		ret = xcalloc(1, 1);
	} else {
		ret = b->ptr;
	}
	if (len)
		*len = b->len;
	buf_init(b, b->cap);
	return ret;
}

int buf_grow(struct buf *b, size_t extra)
{
	size_t want;
	char *p;

	if (extra > SIZE_MAX - b->len - 1)
		goto too_big;
	want = b->len + extra + 1;
	if (b->cap && want - 1 > b->cap)
		goto too_big;
	if (want <= b->alloc)
		return 0;
	if (want < b->alloc * 2)
		want = b->alloc * 2;
	if (want < 64)
		want = 64;
	p = xrealloc(b->alloc ? b->ptr : NULL, want);
	if (!b->alloc)
		p[0] = '\0';
	b->ptr = p;
	b->alloc = want;
	return 0;
too_big:
	b->overflow = true;
	return -1;
}

int buf_add(struct buf *b, const void *data, size_t len)
{
	if (buf_grow(b, len))
		return -1;
	memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int buf_addstr(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_addch(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(b->ptr + b->len, b->alloc ? b->alloc - b->len : 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return -1;
	if (b->alloc && (size_t)n < b->alloc - b->len) {
		if (b->cap && b->len + n > b->cap) {
			b->ptr[b->len] = '\0';
			b->overflow = true;
			return -1;
		}
		b->len += n;
		return 0;
	}
	if (buf_grow(b, n)) {
		if (b->alloc)
			b->ptr[b->len] = '\0';	/* undo the partial write */
		return -1;
	}
	vsnprintf(b->ptr + b->len, b->alloc - b->len, fmt, ap);
	b->len += n;
	return 0;
}

int buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = buf_vaddf(b, fmt, ap);
	va_end(ap);
	return ret;
}

void buf_setlen(struct buf *b, size_t len)
{
	if (!b->alloc)
		return;
	if (len > b->len)
		len = b->len;
	b->len = len;
	b->ptr[len] = '\0';
}

void buf_trim(struct buf *b)
{
	size_t start = 0;

	while (b->len && strchr(" \t\r\n", b->ptr[b->len - 1]))
		b->len--;
	while (start < b->len && strchr(" \t\r\n", b->ptr[start]))
		start++;
	if (!b->alloc)
		return;
	memmove(b->ptr, b->ptr + start, b->len - start);
	b->len -= start;
	b->ptr[b->len] = '\0';
}

int buf_read_fd(struct buf *b, int fd, size_t max)
{
	char chunk[65536];
	size_t total = 0;
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		total += n;
		if (total > max || buf_add(b, chunk, n)) {
			errno = EFBIG;
			return -1;
		}
	}
	return 0;
}

int buf_read_file(struct buf *b, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret, e;

	if (fd < 0)
		return -1;
	ret = buf_read_fd(b, fd, SIZE_MAX);
	e = errno;
	close(fd);
	errno = e;
	return ret;
}

int write_in_full(int fd, const void *data, size_t len)
{
	const char *p = data;
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, p + off, len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += n;
	}
	return 0;
}

int buf_write_fd(const struct buf *b, int fd)
{
	return write_in_full(fd, b->ptr, b->len);
}

bool buf_starts_with(const struct buf *b, const char *prefix)
{
	return !strncmp(b->ptr, prefix, strlen(prefix));
}

bool str_list_has(const char *list, char sep, const char *item, size_t len)
{
	const char *p = list;

	while (*p) {
		const char *end = strchr(p, sep);
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == len && !strncmp(p, item, len))
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}
