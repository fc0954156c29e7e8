/*
 * log: one mutex-protected FILE, so lines from the poller, poster and HTTP
 * threads never interleave mid-line.
 */
#include "log.h"
#include "buf.h"
#include "redact.h"
#include "xalloc.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *level_names[] = { "error", "warn", "info", "debug" };

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;
static char *log_path;
static enum log_level log_level = LOG_INFO;

int log_level_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(*level_names); i++)
		if (!strcmp(name, level_names[i]))
			return i;
	if (!strcmp(name, "warning"))
		return LOG_WARN;
	return -1;
}

static int open_locked(void)
{
	FILE *f;

	if (!log_path) {
		log_file = NULL;
		return 0;
	}
	f = fopen(log_path, "ae");
	if (!f)
		return -1;
	setvbuf(f, NULL, _IOLBF, 0);
	if (log_file)
		fclose(log_file);
	log_file = f;
	return 0;
}

int log_open(const char *path, enum log_level level)
{
	int ret;

	pthread_mutex_lock(&log_lock);
	free(log_path);
	log_path = (path && *path && strcmp(path, "-")) ? xstrdup(path) : NULL;
	if (!log_path && log_file) {
		fclose(log_file);
		log_file = NULL;
	}
	log_level = level;
	ret = open_locked();
	pthread_mutex_unlock(&log_lock);
	return ret;
}

int log_reopen(void)
{
	int ret;

	pthread_mutex_lock(&log_lock);
	ret = open_locked();
	pthread_mutex_unlock(&log_lock);
	return ret;
}

void log_set_level(enum log_level level)
{
	log_level = level;
}

enum log_level log_get_level(void)
{
	return log_level;
}

void log_close(void)
{
	pthread_mutex_lock(&log_lock);
	if (log_file)
		fclose(log_file);
	log_file = NULL;
	free(log_path);
	log_path = NULL;
	pthread_mutex_unlock(&log_lock);
}

static void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	struct buf line = BUF_INIT;
	char stamp[32];
	struct tm tm;
	time_t now;
	FILE *out;

	if (level > log_level)
		return;
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	buf_vaddf(&line, fmt, ap);
	redact_secrets(&line);	/* whatever the caller forgot */
	pthread_mutex_lock(&log_lock);
	out = log_file ? log_file : stderr;
	fprintf(out, "%s %-5s %s\n", stamp, level_names[level], line.ptr);
	fflush(out);
	pthread_mutex_unlock(&log_lock);
	buf_release(&line);
}

void log_write_line(const char *line, size_t len)
{
	struct buf copy = BUF_INIT;
	FILE *out;

	buf_add(&copy, line, len);
	redact_secrets(&copy);
	pthread_mutex_lock(&log_lock);
	out = log_file ? log_file : stderr;
	fprintf(out, "%s\n", copy.ptr);
	fflush(out);
	pthread_mutex_unlock(&log_lock);
	buf_release(&copy);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_ERROR, fmt, ap);
	va_end(ap);
	return -1;
}

void die_code(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("bugbridge: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}
