#ifndef TILECUT_HTTP_H
#define TILECUT_HTTP_H

#include <stddef.h>
#include <stdint.h>

/* One HTTP range read through libcurl's easy interface, where swift-corelibs-foundation's
 * URLSession neither stops a refused answer (its response disposition is ignored: the
 * body is read to its end) nor counts wire bytes (it has libcurl inflate any
 * Content-Encoding before the delegate sees a byte). Here nothing is decoded: the answer
 * is judged at its header (status, Content-Range, Content-Encoding) and the transfer
 * stops there when it is not the range asked for, and the body is stopped at the first
 * byte past the buffer. Redirects are not followed: a 3xx gives its Location back
 * (perhaps relative to the URL asked). */

enum {
  TC_HTTP_OK = 0,        /* the range's bytes (fewer only where the file ends) */
  TC_HTTP_REDIRECT = 1,  /* a 3xx: `location` holds where it leads */
  TC_HTTP_REFUSED = 2,   /* tilecut stopped the answer: `message` says why */
  TC_HTTP_FAILED = 3     /* the transfer failed: `curl_code` and `message` say why */
};

typedef struct {
  long status;                 /* the HTTP status (0 when none came) */
  int64_t total;               /* the file's size from Content-Range's "/total", -1 when absent */
  size_t received;             /* body bytes received: wire bytes, nothing inflated */
  int curl_code;               /* libcurl's CURLcode of the transfer */
  char location[4096];         /* a redirect's target, as its Location header gives it */
  char message[512];           /* why the answer was refused or the transfer failed */
} tc_http_answer;

/* GETs `url` with `Range: bytes=offset-(offset+length-1)` and `Accept-Encoding:
 * identity` into `buffer` (`length` bytes). `silence`: seconds the server may stay
 * silent (connecting, or between bytes); `deadline`: seconds for the whole read.
 * Only http and https are spoken. Returns one of TC_HTTP_*. */
int tc_http_range(const char *url, uint64_t offset, size_t length, long silence, long deadline, unsigned char *buffer,
                  tc_http_answer *answer);

#endif
