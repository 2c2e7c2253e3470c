// The system's libcurl for JSONAPIClient's CurlTransport. curl_easy_setopt, curl_easy_getinfo
// and curl_multi_setopt are variadic, which Swift cannot call: these wrappers fix the type of
// the third argument, one per kind of option.
#ifndef JSONAPI_CCURL_SHIM_H
#define JSONAPI_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode jsonapi_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode jsonapi_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// A string, a list (struct curl_slist *), a buffer or callback data.
static inline CURLcode jsonapi_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
static inline CURLcode jsonapi_curl_setopt_write(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode jsonapi_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode jsonapi_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/// CURL_WRITEFUNC_PAUSE is a macro of an unsigned constant the importer may not bring over.
static inline size_t jsonapi_curl_write_pause(void) { return CURL_WRITEFUNC_PAUSE; }

#endif
