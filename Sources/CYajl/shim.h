// The C door for yajl 2.x. Only Sources/JSONAPIStream/Parsing/YajlParser.swift imports it.
#ifndef JSONAPISTREAM_CYAJL_SHIM_H
#define JSONAPISTREAM_CYAJL_SHIM_H

#include <yajl/yajl_parse.h>

// `yajl_config` is C-variadic, which Swift cannot call. Every option we use takes one int.
static inline int jsonapi_yajl_config(yajl_handle h, yajl_option opt, int on) {
    return yajl_config(h, opt, on);
}

#endif
