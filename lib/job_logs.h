/*
 * job_logs: which files of a job's log directory may be shown to anyone.
 *
 * The dashboard serves "/job/<id>/<name>" from the job's log_dir, and the
 * job's JSON document lists the same files as URLs, so the rule lives here
 * once: the name must match a strict pattern (letters, digits, '-', '_',
 * '.', ending in ".log", no leading dot, hence no "..", no '/'), and the
 * file must be a regular file, not a symlink: one planted in a log
 * directory leads nowhere.
 */
#ifndef BB_JOB_LOGS_H
#define BB_JOB_LOGS_H

#include <stdbool.h>

/* name is a log file name we are willing to serve (the pattern alone). */
bool job_log_name_ok(const char *name);

/*
 * The servable logs in dir (an absolute path; anything else has none),
 * sorted by name, into a new array *names of *n strings; free it with
 * job_logs_free().  A directory that cannot be read has none.
 */
void job_logs_list(const char *dir, char ***names, int *n);
void job_logs_free(char **names, int n);

#endif
