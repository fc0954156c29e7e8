/*
 * log: levelled, timestamped log lines to stderr or a file.
 *
 * One line per call: "2026-12-03T09:15:02Z warn  poll: tracker answered 500".
 * The file is reopened on SIGHUP (log_reopen) so logrotate works.  Callers
 * never log a secret: URLs go through redact_url() first (see redact.h).
 * error() logs and returns -1 so that "return error(...)" reads naturally.
 */
#ifndef BB_LOG_H
#define BB_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* Parse "error", "warn", "info", "debug"; -1 if unknown. */
int log_level_parse(const char *name);
/* Send logs to path (NULL or "" or "-": stderr). */
int log_open(const char *path, enum log_level level);
int log_reopen(void);
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
void log_close(void);

/*
 * A line another process of ours already formatted (the dashboard's, which
 * writes its log through us): written as it is (secrets scrubbed), without
 * its newline.
 */
void log_write_line(const char *line, size_t len);
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Start-up failures only: print "bugbridge: fatal: ..." and exit(code). */
__attribute__((noreturn, format(printf, 2, 3)))
void die_code(int code, const char *fmt, ...);
#define die(...) die_code(1, __VA_ARGS__)

#endif
