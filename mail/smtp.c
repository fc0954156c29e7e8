/*
 * smtp: one message, one libcurl SMTP session.  See smtp.h.
 *
 * libcurl does the protocol (EHLO, STARTTLS, AUTH, MAIL/RCPT/DATA and dot
 * stuffing); we feed it the message and listen to what the server says.
 * The server's reply lines come through the debug callback (CURLINFO_HEADER_IN
 * only: the lines we send include the AUTH exchange and stay unseen), so a
 * refused message is recorded with the server's own words.
 */
#include "smtp.h"
#include "config.h"
#include "log.h"
#include "redact.h"

#include <curl/curl.h>
#include <pthread.h>
#include <string.h>

static pthread_once_t smtp_once = PTHREAD_ONCE_INIT;
static CURLcode smtp_global_rc;

static void smtp_global_init(void)
{
	smtp_global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

struct smtp_upload {
	const char *data;
	size_t len, pos;
};

static size_t smtp_read(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct smtp_upload *up = arg;
	size_t n = size * nmemb;

	if (n > up->len - up->pos)
		n = up->len - up->pos;
	memcpy(ptr, up->data + up->pos, n);
	up->pos += n;
	return n;
}

/* The answer to a command (NOOP's "250 OK") is in the debug lines already. */
static size_t smtp_discard(char *ptr, size_t size, size_t nmemb, void *arg)
{
	(void)ptr;
	(void)arg;
	return size * nmemb;
}

/* Keep the server's last reply line. */
static int smtp_debug(CURL *curl, curl_infotype type, char *data, size_t size, void *arg)
{
	struct buf *last = arg;

	(void)curl;
	if (type != CURLINFO_HEADER_IN)
		return 0;
	while (size && (data[size - 1] == '\n' || data[size - 1] == '\r'))
		size--;
	buf_reset(last);
	buf_add(last, data, size > 400 ? 400 : size);
	return 0;
}

/* "Name <a@b>" -> "<a@b>"; "a@b" -> "<a@b>". */
static void smtp_path(struct buf *out, const char *addr)
{
	const char *lt = strchr(addr, '<');
	size_t len;

	buf_reset(out);
	if (lt) {
		addr = lt + 1;
		len = strcspn(addr, ">");
	} else {
		len = strlen(addr);
	}
	buf_addch(out, '<');
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)addr[i] > ' ')
			buf_addch(out, addr[i]);
	buf_addch(out, '>');
}

static struct curl_slist *smtp_rcpt_list(const char *rcpts)
{
	struct curl_slist *list = NULL;
	struct buf path = BUF_INIT;
	char **v;
	int n;

	v = config_split_list(rcpts, &n);
	for (int i = 0; i < n; i++) {
		smtp_path(&path, v[i]);
		list = curl_slist_append(list, path.ptr);
	}
	config_list_free(v);
	buf_release(&path);
	return list;
}

/* Put the AUTH settings on curl; -1 (reply says why) if the secret is unreadable. */
static int smtp_auth(CURL *curl, struct buf *reply)
{
	struct buf password = BUF_INIT, err = BUF_INIT;
	const char *user = cfg_str("smtp.user");
	int ret = -1;

	if (!*user)
		return 0;
	if (config_secret(cfg, "smtp.password", &password, &err)) {
		buf_addf(reply, "smtp: %s", err.ptr);
		goto out;
	}
	curl_easy_setopt(curl, CURLOPT_USERNAME, user);
	curl_easy_setopt(curl, CURLOPT_PASSWORD, password.ptr);
	ret = 0;
out:
	/* libcurl copied it; do not leave the secret lying in freed memory */
	if (password.alloc)
		memset(password.ptr, 0, password.len);
	buf_release(&password);
	buf_release(&err);
	return ret;
}

static enum smtp_result smtp_classify(CURLcode res, long code, const char *errbuf,
				      const struct buf *last, struct buf *reply)
{
	buf_reset(reply);
	if (res == CURLE_OK && (code == 0 || code / 100 == 2)) {
		buf_addstr(reply, last->ptr);
		return SMTP_SENT;
	}
	if (last->len && code >= 400)
		buf_addstr(reply, last->ptr);
	else
		buf_addf(reply, "%s", *errbuf ? errbuf : curl_easy_strerror(res));
	/* libcurl's messages may quote the URL; keep credentials out of the record */
	redact_buf(reply);
	if (code >= 500 && code < 600)
		return SMTP_FAILED;
	return SMTP_RETRY;
}

/* What every session shares: the server, its timeouts, TLS, and its replies into last. */
static void smtp_session(CURL *curl, char *errbuf, struct buf *last)
{
	curl_easy_setopt(curl, CURLOPT_URL, cfg_str("smtp.url"));
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, cfg_int("smtp.timeout"));
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, cfg_int("smtp.timeout"));
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	if (cfg_bool("smtp.starttls"))
		curl_easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	if (*cfg_str("smtp.ca_file"))
		curl_easy_setopt(curl, CURLOPT_CAINFO, cfg_str("smtp.ca_file"));
	curl_easy_setopt(curl, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(curl, CURLOPT_DEBUGFUNCTION, smtp_debug);
	curl_easy_setopt(curl, CURLOPT_DEBUGDATA, last);
}

static CURL *smtp_curl(struct buf *reply)
{
	CURL *curl;

	pthread_once(&smtp_once, smtp_global_init);
	curl = smtp_global_rc == CURLE_OK ? curl_easy_init() : NULL;
	if (!curl)
		buf_addstr(reply, "smtp: cannot start libcurl");
	return curl;
}

enum smtp_result smtp_send(const char *from, const char *rcpts, const char *msg,
			   struct buf *reply)
{
	struct smtp_upload up = { msg, strlen(msg), 0 };
	struct buf sender = BUF_INIT, last = BUF_INIT;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *to = NULL;
	enum smtp_result ret = SMTP_RETRY;
	long code = 0;
	CURL *curl;
	CURLcode res;

	buf_reset(reply);
	curl = smtp_curl(reply);
	if (!curl)
		return SMTP_RETRY;
	to = smtp_rcpt_list(rcpts);
	if (!to) {
		buf_addstr(reply, "smtp: no recipients");
		ret = SMTP_FAILED;
		goto out;
	}
	if (smtp_auth(curl, reply))
		goto out;
	smtp_path(&sender, from);
	smtp_session(curl, errbuf, &last);
	curl_easy_setopt(curl, CURLOPT_MAIL_FROM, sender.ptr);
	curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, to);
	curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(curl, CURLOPT_READFUNCTION, smtp_read);
	curl_easy_setopt(curl, CURLOPT_READDATA, &up);
	curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)up.len);

	res = curl_easy_perform(curl);
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
	ret = smtp_classify(res, code, errbuf, &last, reply);
out:
	curl_slist_free_all(to);
	curl_easy_cleanup(curl);
	buf_release(&sender);
	buf_release(&last);
	return ret;
}

enum smtp_result smtp_noop(struct buf *reply)
{
	struct buf last = BUF_INIT;
	char errbuf[CURL_ERROR_SIZE] = "";
	enum smtp_result ret = SMTP_RETRY;
	long code = 0;
	CURL *curl;
	CURLcode res;

	buf_reset(reply);
	curl = smtp_curl(reply);
	if (!curl)
		return SMTP_RETRY;
	if (smtp_auth(curl, reply))
		goto out;
	smtp_session(curl, errbuf, &last);
	/* no upload, no recipient: libcurl sends the custom command, then QUIT */
	curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "NOOP");
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, smtp_discard);
	res = curl_easy_perform(curl);
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
	ret = smtp_classify(res, code, errbuf, &last, reply);
out:
	curl_easy_cleanup(curl);
	buf_release(&last);
	return ret;
}
