#include "TilecutHTTP.h"

#include <curl/curl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
  uint64_t offset;
  size_t length;
  unsigned char *buffer;
  tc_http_answer *answer;
  int refused;
  int redirect;
  int judged;
  int range_ok;
  char encoding[128];
  char range[256];
} tc_transfer;

static void tc_copy_header_value(const char *line, size_t n, size_t name_length, char *out, size_t capacity) {
  size_t i = name_length;
  while (i < n && (line[i] == ' ' || line[i] == '\t')) i++;
  size_t end = n;
  while (end > i && (line[end - 1] == '\r' || line[end - 1] == '\n' || line[end - 1] == ' ' || line[end - 1] == '\t')) end--;
  size_t count = end - i < capacity - 1 ? end - i : capacity - 1;
  memcpy(out, line + i, count);
  out[count] = 0;
}

static int tc_has_name(const char *line, size_t n, const char *name) {
  size_t k = strlen(name);
  return n >= k && strncasecmp(line, name, k) == 0;
}

/* The answer at the end of its header: a 3xx is a redirect, a 206 of the range asked
 * for in identity encoding is read, anything else is refused before its body. */
static int tc_judge(tc_transfer *t) {
  tc_http_answer *a = t->answer;
  long status = a->status;
  t->judged = 1;
  if (status >= 300 && status < 400 && status != 304) {
    t->redirect = 1;
    return 0;
  }
  if (t->encoding[0] && strcasecmp(t->encoding, "identity") != 0) {
    snprintf(a->message, sizeof a->message,
             "the server sent its answer with Content-Encoding '%.40s' though identity was asked for; tilecut reads archives byte for byte",
             t->encoding);
    return 0;
  }
  if (status == 206) {
    /* Content-Range: bytes a-b/total, or a-b/(asterisk) when the size is unknown */
    const char *r = t->range;
    unsigned long long start = 0, end = 0;
    int parsed = strncasecmp(r, "bytes ", 6) == 0 && sscanf(r + 6, "%llu-%llu", &start, &end) == 2;
    if (!parsed || start != t->offset || end < start) {
      snprintf(a->message, sizeof a->message, "the server answered a range other than the one asked for (%.100s)",
               r[0] ? r : "no Content-Range");
      return 0;
    }
    const char *slash = strchr(r, '/');
    a->total = -1;
    if (slash && slash[1] != '*') {
      char *stop = NULL;
      unsigned long long total = strtoull(slash + 1, &stop, 10);
      if (stop != slash + 1 && total <= INT64_MAX) a->total = (int64_t)total;
    }
    t->range_ok = 1;
    return 1;
  }
  if (status == 200) {
    snprintf(a->message, sizeof a->message,
             "the server ignores Range requests (it answered 200 with the whole file); serve the archive from a host that honours Range");
  } else if (status == 416) {
    snprintf(a->message, sizeof a->message,
             "the server says the range %" PRIu64 "+%zu is outside the file (HTTP 416): the archive is shorter than its header says",
             t->offset, t->length);
  } else {
    snprintf(a->message, sizeof a->message, "the server answered HTTP %ld", status);
  }
  return 0;
}

static size_t tc_header(char *line, size_t size, size_t count, void *context) {
  tc_transfer *t = context;
  size_t n = size * count;
  if (tc_has_name(line, n, "HTTP/")) {
    /* a new answer (a 100 Continue before the real one): start over */
    long status = 0;
    const char *space = memchr(line, ' ', n);
    if (space) status = strtol(space + 1, NULL, 10);
    t->answer->status = status;
    t->encoding[0] = 0;
    t->range[0] = 0;
    t->answer->location[0] = 0;
    t->judged = 0;
    return n;
  }
  if (tc_has_name(line, n, "Location:")) {
    /* libcurl tells a redirect's target only of a transfer that completed: kept here */
    tc_copy_header_value(line, n, strlen("Location:"), t->answer->location, sizeof t->answer->location);
  } else if (tc_has_name(line, n, "Content-Encoding:")) {
    tc_copy_header_value(line, n, strlen("Content-Encoding:"), t->encoding, sizeof t->encoding);
  } else if (tc_has_name(line, n, "Content-Range:")) {
    tc_copy_header_value(line, n, strlen("Content-Range:"), t->range, sizeof t->range);
  } else if (n <= 2 && (line[0] == '\r' || line[0] == '\n')) {
    if (t->answer->status >= 100 && t->answer->status < 200) return n;
    if (!tc_judge(t)) {
      if (!t->redirect) t->refused = 1;
      return 0; /* stops the transfer at the header: no body is read */
    }
  }
  return n;
}

static size_t tc_write(char *data, size_t size, size_t count, void *context) {
  tc_transfer *t = context;
  size_t n = size * count;
  tc_http_answer *a = t->answer;
  if (!t->judged || !t->range_ok || t->refused) {
    t->refused = 1;
    if (!a->message[0]) snprintf(a->message, sizeof a->message, "the server sent a body before a complete header");
    return 0;
  }
  if (n > t->length - a->received) {
    t->refused = 1;
    snprintf(a->message, sizeof a->message, "the server sent more than the %zu bytes asked for", t->length);
    return 0;
  }
  memcpy(t->buffer + a->received, data, n);
  a->received += n;
  return n;
}

int tc_http_range(const char *url, uint64_t offset, size_t length, long silence, long deadline, unsigned char *buffer,
                  tc_http_answer *answer) {
  memset(answer, 0, sizeof *answer);
  answer->total = -1;
  if (length == 0) return TC_HTTP_OK;
  CURL *curl = curl_easy_init();
  if (!curl) {
    snprintf(answer->message, sizeof answer->message, "libcurl could not start a transfer");
    return TC_HTTP_FAILED;
  }
  tc_transfer t;
  memset(&t, 0, sizeof t);
  t.offset = offset;
  t.length = length;
  t.buffer = buffer;
  t.answer = answer;
  char range[80];
  snprintf(range, sizeof range, "Range: bytes=%" PRIu64 "-%" PRIu64, offset, offset + (uint64_t)length - 1);
  struct curl_slist *headers = curl_slist_append(NULL, range);
  struct curl_slist *more = headers ? curl_slist_append(headers, "Accept-Encoding: identity") : NULL;
  if (!more) {
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    snprintf(answer->message, sizeof answer->message, "out of memory");
    return TC_HTTP_FAILED;
  }
  headers = more;
  curl_easy_setopt(curl, CURLOPT_URL, url);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "tilecut");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, silence);
  /* silent for `silence` seconds: less than a byte a second that long */
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, silence);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, deadline);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, tc_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, tc_write);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  CURLcode code = curl_easy_perform(curl);
  answer->curl_code = (int)code;
  int result;
  if (t.redirect) {
    if (answer->location[0]) {
      result = TC_HTTP_REDIRECT;
    } else {
      snprintf(answer->message, sizeof answer->message, "the server answered HTTP %ld without a usable Location", answer->status);
      result = TC_HTTP_REFUSED;
    }
  } else if (t.refused) {
    result = TC_HTTP_REFUSED;
  } else if (code != CURLE_OK) {
    snprintf(answer->message, sizeof answer->message, "%s", curl_easy_strerror(code));
    result = TC_HTTP_FAILED;
  } else if (!t.range_ok) {
    snprintf(answer->message, sizeof answer->message, "the server sent no answer");
    result = TC_HTTP_REFUSED;
  } else {
    result = TC_HTTP_OK;
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return result;
}
