/*
 * buf: the one growable string buffer.
 *
 * A buf is never NULL and always NUL-terminated: an empty buf points at a
 * shared empty string, so callers can print b.ptr without checking.  A buf
 * may carry a size cap (buf_init with cap > 0); an append that would pass the
 * cap fails with -1, leaves the buffer as it was and sets b->overflow, so an
 * oversized tracker reply or console log fails cleanly instead of eating
 * memory.  Allocation failure aborts: there is nothing sensible to do then.
 *
 * Ownership: the buf owns ptr until buf_detach() hands it to the caller, who
 * then frees it with free().  buf_release() frees and re-initialises.
 */
#ifndef BB_BUF_H
#define BB_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

extern char buf_empty[];

struct buf {
	char *ptr;
	size_t len;
	size_t alloc;
	size_t cap;		/* 0: unlimited */
	bool overflow;		/* an append was refused by the cap */
};

#define BUF_INIT { buf_empty, 0, 0, 0, false }

void buf_init(struct buf *b, size_t cap);
void buf_release(struct buf *b);
void buf_reset(struct buf *b);
char *buf_detach(struct buf *b, size_t *len);

/* Make room for extra more bytes; -1 if that passes the cap. */
int buf_grow(struct buf *b, size_t extra);
int buf_add(struct buf *b, const void *data, size_t len);
int buf_addstr(struct buf *b, const char *s);
int buf_addch(struct buf *b, char c);
int buf_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void buf_setlen(struct buf *b, size_t len);
void buf_trim(struct buf *b);

/* Read a whole file (up to the cap); -1 with errno set on failure. */
int buf_read_file(struct buf *b, const char *path);
/* Append what fd holds until EOF, at most max bytes (more: -1, EFBIG). */
int buf_read_fd(struct buf *b, int fd, size_t max);
/* Write the whole buffer to fd; -1 with errno set (ENOSPC...) on failure. */
int buf_write_fd(const struct buf *b, int fd);
/* Write all of data to fd, past short writes and EINTR; -1 with errno set. */
int write_in_full(int fd, const void *data, size_t len);

bool buf_starts_with(const struct buf *b, const char *prefix);
/* Is item[0..len) one of the sep-separated parts of list, exactly? ("a|b", '|') */
bool str_list_has(const char *list, char sep, const char *item, size_t len);

#endif
