/*
 * config_keys: every configuration key bugbridge knows, with its default.
 * The example configuration file is generated from this table.
 */
#include "config.h"

const struct config_key config_keys[] = {
	{ "db", "path", CONF_STR, "bugbridge.db", NULL, 0,
	  "SQLite database file (WAL mode; the -wal and -shm files live beside it)" },

	{ "tracker", "url", CONF_STR, "http://127.0.0.1:8091", NULL, 0,
	  "Bugzilla base URL (the part before /rest)" },
	{ "tracker", "api_key", CONF_STR, "", NULL, CONF_SECRET,
	  "Bugzilla API key of the bot account (or use api_key_file)" },
	{ "tracker", "api_key_file", CONF_STR, "", NULL, 0,
	  "file whose first line is the API key" },
	{ "tracker", "login", CONF_STR, "", NULL, 0,
	  "the bot account's login, to recognise our own comments (empty: asked of the"
	  " tracker, GET /rest/whoami or /rest/valid_login)" },
	{ "tracker", "watch_bugs", CONF_LIST, "", NULL, 0,
	  "bug ids to watch, e.g. 9370, 9371" },
	{ "tracker", "watch_components", CONF_LIST, "", NULL, 0,
	  "product:component pairs to watch, e.g. IO/Storage:SCSI" },
	{ "tracker", "watch_status", CONF_LIST, "", NULL, 0,
	  "only bugs in these statuses (empty: the tracker's open statuses)" },
	{ "tracker", "poll_interval", CONF_INT, "60", NULL, 0,
	  "seconds between polls (a new attachment is seen within one; a quiet tracker costs one request each)" },
	{ "tracker", "overlap", CONF_INT, "2", NULL, 0,
	  "seconds the poll cursor is moved back, so equal timestamps are not missed" },
	{ "tracker", "page_size", CONF_INT, "500", NULL, 0,
	  "bugs per search page (limit=/offset=)" },
	{ "tracker", "connect_timeout", CONF_INT, "10", NULL, 0,
	  "seconds to connect to the tracker" },
	{ "tracker", "timeout", CONF_INT, "60", NULL, 0,
	  "seconds for a whole request" },
	{ "tracker", "retries", CONF_INT, "4", NULL, 0,
	  "retries of a failed request (timeouts, 5xx, 429) with exponential backoff; writes are retried through the outbox" },
	{ "tracker", "backoff_ms", CONF_INT, "500", NULL, 0,
	  "first retry delay in milliseconds (doubled each time, with jitter)" },
	{ "tracker", "max_response", CONF_INT, "67108864", NULL, 0,
	  "largest response body accepted, in bytes" },
	{ "tracker", "private_bugs", CONF_ENUM, "skip", "skip|test", 0,
	  "bugs in a tracker group (private): skip = never test or show them; test = test"
	  " them, post results as private comments, show them only to API token holders" },

	{ "web", "listen", CONF_STR, "127.0.0.1:8080", NULL, 0,
	  "host:port of the dashboard and API" },
	{ "web", "base_url", CONF_STR, "", NULL, 0,
	  "public URL of the dashboard, for links in comments and mails (default: http://<listen>)" },
	{ "web", "token", CONF_STR, "", NULL, CONF_SECRET,
	  "bearer token for API writes and private bugs (or use token_file)" },
	{ "web", "token_file", CONF_STR, "", NULL, 0,
	  "file whose first line is the API token" },
	{ "web", "threads", CONF_INT, "4", NULL, 0,
	  "HTTP worker threads" },
	{ "web", "max_per_ip", CONF_INT, "32", NULL, 0,
	  "open connections allowed from one client address (0: no limit)" },
	{ "web", "user", CONF_STR, "nobody", NULL, 0,
	  "unprivileged user the dashboard's process runs as when bugbridged is started as root" },

	{ "smtp", "url", CONF_STR, "smtp://127.0.0.1:2525", NULL, 0,
	  "mail server: smtp://host:port or smtps://host:port" },
	{ "smtp", "from", CONF_STR, "bugbridge@localhost", NULL, 0,
	  "envelope and header sender" },
	{ "smtp", "to", CONF_LIST, "", NULL, 0,
	  "default digest recipients (lists)" },
	{ "smtp", "lists", CONF_LIST, "", NULL, 0,
	  "per-component lists, e.g. SCSI=linux-scsi@vger.kernel.org" },
	{ "smtp", "use_maintainers", CONF_BOOL, "false", NULL, 0,
	  "also route digests to the L: lists MAINTAINERS gives for a bug's files" },
	{ "smtp", "starttls", CONF_BOOL, "false", NULL, 0,
	  "require STARTTLS on smtp:// URLs" },
	{ "smtp", "user", CONF_STR, "", NULL, 0,
	  "SMTP AUTH user (empty: no AUTH)" },
	{ "smtp", "password", CONF_STR, "", NULL, CONF_SECRET,
	  "SMTP AUTH password (or use password_file)" },
	{ "smtp", "password_file", CONF_STR, "", NULL, 0,
	  "file whose first line is the SMTP password" },
	{ "smtp", "timeout", CONF_INT, "30", NULL, 0,
	  "seconds for one SMTP session" },
	{ "smtp", "backoff", CONF_INT, "60", NULL, 0,
	  "seconds before the first retry of a digest the server did not take (doubled each time, up to an hour)" },
	{ "smtp", "ca_file", CONF_STR, "", NULL, 0,
	  "CA certificates to verify the mail server's TLS certificate with (empty: the system's)" },

	{ "digest", "every", CONF_ENUM, "daily", "daily|weekly|never", 0,
	  "how often bugbridged sends the digest" },
	{ "digest", "hour", CONF_INT, "8", NULL, 0,
	  "hour of day (UTC) at which the digest is due" },

	{ "triage", "stale_days", CONF_INT, "14", NULL, 0,
	  "days without a human comment before a bug needs attention" },
	{ "triage", "mirror", CONF_LIST, "whiteboard", NULL, 0,
	  "where triage state is mirrored: whiteboard, keywords (or empty)" },
	{ "triage", "set_status", CONF_BOOL, "false", NULL, 0,
	  "let bugbridge change bug status/resolution (never closes unless true)" },
	{ "triage", "cc_maintainers", CONF_BOOL, "false", NULL, 0,
	  "add MAINTAINERS entries of a bug's files to its Cc" },
	{ "triage", "allow_commands", CONF_LIST, "", NULL, 0,
	  "accounts whose 'bugbridge: ...' comments are obeyed" },
	{ "triage", "test_from", CONF_LIST, "anyone", NULL, 0,
	  "whose patches are tested without asking: anyone, editbugs (members of that tracker"
	  " group), or a list of accounts; others wait for 'bugbridge: test N' from allow_commands" },
	{ "triage", "acknowledge", CONF_BOOL, "false", NULL, 0,
	  "post a short 'queued' comment for each job bugbridge queues on its own (a new"
	  " patch, a fix's re-run); 'bugbridge:' commands are answered whatever this says" },
	{ "triage", "maintainers", CONF_STR, "", NULL, 0,
	  "the kernel's MAINTAINERS file, for owners of a bug's files; auto: the one in"
	  " the first kept series' tarball, extracted once into the cache (empty: no owners)" },
	{ "triage", "backtest", CONF_BOOL, "true", NULL, 0,
	  "after a fix (FAIL->PASS), test it on every other kept series too and post the"
	  " matrix (series: applies? unpatched / patched)" },
	{ "triage", "release_bisect", CONF_BOOL, "true", NULL, 0,
	  "when the unpatched kernel fails a test, find the first release of that series in"
	  " the archive that fails it (the runner fetches each release it builds)" },
	{ "triage", "release_bisect_builds", CONF_INT, "5", NULL, 0,
	  "most releases one such bisection builds; it reports the range it got to" },

	{ "queue", "account_jobs_per_day", CONF_INT, "10", NULL, 0,
	  "jobs one tracker account's patches and commands may queue per UTC day (0: no limit);"
	  " [triage] allow_commands accounts and the operator (bugbridge job add, the API) are"
	  " not limited; more wait for the next day with room" },
	{ "queue", "bug_jobs_per_day", CONF_INT, "40", NULL, 0,
	  "jobs one bug may queue per UTC day from the tracker, re-runs, back-tests and"
	  " bisection steps included (0: no limit); more wait for the next day with room" },
	{ "queue", "defer_days", CONF_INT, "2", NULL, 0,
	  "how many days ahead a patch over budget may be put; past that it is not queued (the"
	  " comment says so, and an allow_commands account can ask for it later)" },
	{ "queue", "max_mbox_patches", CONF_INT, "30", NULL, 0,
	  "patches one mbox or series from the tracker may have; a bigger one is not tested"
	  " (0: no limit)" },

	{ "runner", "cache_dir", CONF_STR, "", NULL, 0,
	  "kernel trees, builds and logs (default: $XDG_CACHE_HOME/bugbridge)" },
	{ "runner", "log_dir", CONF_STR, "", NULL, 0,
	  "job logs, one directory per run (empty: beside the job's trees in cache_dir/jobs);"
	  " a volume of their own keeps bulky trees from filling it" },
	{ "runner", "parallel", CONF_INT, "1", NULL, 0,
	  "jobs built (and, locally, booted) at once by one runner; the builds running share the"
	  " CPUs, and one alone gets them all" },
	{ "runner", "backend", CONF_ENUM, "local", "local|lava", 0,
	  "where kernels boot: local QEMU, or a LAVA lab ([lava]); builds stay on this host" },
	{ "runner", "accel", CONF_ENUM, "auto", "auto|kvm|tcg", 0,
	  "QEMU accelerator; auto probes KVM with a real boot and falls back to TCG" },
	{ "runner", "name", CONF_STR, "", NULL, 0,
	  "runner name in leases (default: hostname:pid)" },
	{ "runner", "lease", CONF_INT, "120", NULL, 0,
	  "seconds a claim is held without renewal" },
	{ "runner", "max_attempts", CONF_INT, "3", NULL, 0,
	  "tries of a job that ends in infra-error or a lost lease" },
	{ "runner", "retry_delay", CONF_INT, "60", NULL, 0,
	  "seconds before the second try of a job that hit an infrastructure error (or lost its"
	  " runner); doubled for each later try" },
	{ "runner", "retry_delay_max", CONF_INT, "3600", NULL, 0,
	  "longest wait between two tries of such a job, in seconds" },
	{ "runner", "coverage", CONF_BOOL, "true", NULL, 0,
	  "build a patch's kernel with gcov for drivers/scsi and the files the patch touches,"
	  " and say whether the suite ran its changed lines (a pass that did not is"
	  " \"pass (not reached)\")" },
	{ "runner", "controllers", CONF_STR, "", NULL, 0,
	  "the emulated host adapters every job boots behind (names from the scenarios, or"
	  " default, all, none); empty: those the patch picks (its drivers' files), the default"
	  " set for any other file" },
	{ "runner", "grow_max", CONF_INT, "100", NULL, 0,
	  "options a patch's files may turn on beyond the standard config (the options that"
	  " build them and what those pull in); past it the job is \"untested\"" },
	{ "runner", "flake_retries", CONF_INT, "2", NULL, 0,
	  "extra runs of a failing test before it counts as failed" },
	{ "runner", "baseline_max_age", CONF_INT, "604800", NULL, 0,
	  "seconds the base's results are reused by later jobs on the same base, config and"
	  " suite before it runs again (0: every job with a baseline runs it)" },
	{ "runner", "bases", CONF_LIST, "6.1, 6.12", NULL, 0,
	  "kernel series to keep (Debian linux-source-X packages): those installed are kept,"
	  " a bug is tested on the nearest, a fix back-tested on each" },
	{ "runner", "kernel_source", CONF_STR, "/usr/src/linux-source-{series}.tar.xz", NULL, 0,
	  "a kept series' source tarball, {series} replaced (a path without it: the tarball of"
	  " the first series, the only one kept then)" },
	{ "runner", "base", CONF_STR, "", NULL, 0,
	  "base of jobs whose bug names no kernel version (empty: the first kept series)" },
	{ "runner", "release_cache_mb", CONF_INT, "8192", NULL, 0,
	  "MiB the releases fetched from the archive may take in cache_dir (trees, seeds,"
	  " packages); past it the least recently used release is dropped" },
	{ "runner", "deb_dir", CONF_STR, "", NULL, 0,
	  "where fetched linux-source packages are kept (empty: cache_dir/debs, counted in"
	  " release_cache_mb; elsewhere, they are never deleted)" },
	{ "runner", "patches_dir", CONF_STR, "", NULL, 0,
	  "kernel-patches directory (configs, suite, harness; default: the installed one)" },
	{ "runner", "config_variant", CONF_STR, "base", NULL, 0,
	  "config fragment from kernel-patches/configs/ (base or kasan)" },
	{ "runner", "build_timeout", CONF_INT, "1800", NULL, 0,
	  "seconds a kernel build may take" },
	{ "runner", "reuse_kernels", CONF_BOOL, "false", NULL, 0,
	  "boot a kernel kept from an earlier job with the same base, config, harness and"
	  " patches instead of building it again (the mutation campaign: one build, a boot"
	  " per mutant; never with coverage or a baseline)" },
	{ "runner", "shards", CONF_INT, "0", NULL, 0,
	  "guests that split the suite of a boot among them, booted at once (0: as many as"
	  " are fastest here, from the CPUs and what a boot and each test took; 1: one guest)" },
	{ "runner", "boot_timeout", CONF_INT, "180", NULL, 0,
	  "seconds of wall clock a guest may run before it is killed" },
	{ "runner", "max_console", CONF_INT, "16777216", NULL, 0,
	  "bytes of guest console kept; the rest is dropped" },
	{ "runner", "max_build_log", CONF_INT, "16777216", NULL, 0,
	  "bytes of output kept per run of apply, configure, build and gcov (its first and"
	  " last halves); a patch whose apply writes more gets apply-failed, whose configure"
	  " or build writes more build-failed; a gcov that writes more measures nothing" },
	{ "runner", "sandbox", CONF_ENUM, "auto", "auto|bwrap|unshare|none", 0,
	  "how apply, builds and QEMU are confined: bwrap (auto: when it works); unshare"
	  " (no network only) and none need unconfined = true" },
	{ "runner", "unconfined", CONF_BOOL, "false", NULL, 0,
	  "run untrusted patches and kernels even without a working bwrap (otherwise such"
	  " jobs end in infra-error saying why)" },
	{ "runner", "build_user", CONF_STR, "nobody", NULL, 0,
	  "unprivileged user (name, or a uid of its own) that apply, builds and QEMU run as"
	  " when the runner is root" },

	{ "lava", "url", CONF_STR, "", NULL, 0,
	  "the LAVA server (the part before /api/v0.2), for [runner] backend = lava" },
	{ "lava", "token", CONF_STR, "", NULL, CONF_SECRET,
	  "LAVA REST API token of the submitting user (or use token_file)" },
	{ "lava", "token_file", CONF_STR, "", NULL, 0,
	  "file whose first line is the LAVA API token" },
	{ "lava", "device_type", CONF_STR, "qemu", NULL, 0,
	  "LAVA device type the boots are submitted to" },
	{ "lava", "device_kind", CONF_ENUM, "auto", "auto|qemu|board", 0,
	  "qemu: the scenario's emulated devices go to QEMU; board: real hardware, tests that need"
	  " emulated devices or faults are skipped (auto: qemu when device_type is qemu)" },
	{ "lava", "boot_method", CONF_STR, "", NULL, 0,
	  "boot method for a board (ipxe, grub, u-boot, ...; deployed over tftp); empty: qemu" },
	{ "lava", "priority", CONF_STR, "medium", NULL, 0,
	  "LAVA job priority: high, medium, low or 0-100" },
	{ "lava", "visibility", CONF_ENUM, "public", "public|personal", 0,
	  "who may see the LAVA jobs of public bugs" },
	{ "lava", "private_visibility", CONF_ENUM, "personal", "personal|group|refuse", 0,
	  "the LAVA jobs of private bugs ([tracker] private_bugs = test): personal (the token's"
	  " user), group (the private_groups), or refuse (never sent to the lab: an infra-error"
	  " saying so); never public" },
	{ "lava", "private_groups", CONF_LIST, "", NULL, 0,
	  "LAVA groups that may see the jobs of private bugs (private_visibility = group)" },
	{ "lava", "job_timeout", CONF_INT, "1800", NULL, 0,
	  "seconds a LAVA job may run (LAVA's job timeout); past it plus a minute, the runner"
	  " cancels it and the boot is an infra-error" },
	{ "lava", "queue_timeout", CONF_INT, "3600", NULL, 0,
	  "seconds a LAVA job may wait for a device before it is cancelled (infra-error)" },
	{ "lava", "submit_wait", CONF_INT, "0", NULL, 0,
	  "seconds to keep trying while LAVA does not answer (0: until it does)" },
	{ "lava", "poll_interval", CONF_INT, "5", NULL, 0,
	  "seconds between looks at a LAVA job's state" },
	{ "lava", "artifacts_url", CONF_STR, "", NULL, 0,
	  "URL workers fetch kernels, initramfs and disk images from (empty: [web] base_url"
	  " + /artifacts, served by bugbridged under a per-boot unguessable path)" },
	{ "lava", "artifacts_dir", CONF_STR, "", NULL, 0,
	  "a directory the operator serves at artifacts_url (empty: bugbridged serves them)" },

	{ "log", "level", CONF_ENUM, "info", "error|warn|info|debug", 0,
	  "least severe level logged" },
	{ "log", "file", CONF_STR, "", NULL, 0,
	  "log file (empty: standard error); reopened on SIGHUP" },
};

const int config_nkeys = sizeof(config_keys) / sizeof(config_keys[0]);
