"""Endpoints for the client's failure tests: slow, failing-then-succeeding, wrong content
types, truncated bodies. Not part of any real API."""
import json
import threading
import time
from email.utils import formatdate

from django.http import HttpResponse, StreamingHttpResponse

JSON_API = "application/vnd.api+json"

_lock = threading.Lock()
_attempts = {}


def _document(meta, status=200):
    body = json.dumps({"data": [], "meta": meta, "links": {"self": None}})
    return HttpResponse(body, status=status, content_type=JSON_API)


def slow(request):
    """Sleeps `seconds` (at most 60) before answering."""
    seconds = min(float(request.GET.get("seconds", "5")), 60.0)
    time.sleep(seconds)
    return _document({"slept": seconds})


def flaky(request):
    """Fails `failures` times per `key` with `status` (503 by default) and a Retry-After of
    `retry_after` seconds (as an HTTP-date with `date=1`; none with `retry_after=none`),
    then answers with the number of attempts in meta."""
    key = request.GET.get("key", "default")
    failures = int(request.GET.get("failures", "2"))
    status = int(request.GET.get("status", "503"))
    retry_after = request.GET.get("retry_after", "1")
    with _lock:
        _attempts[key] = _attempts.get(key, 0) + 1
        attempt = _attempts[key]
    if attempt <= failures:
        errors = {"errors": [{"status": str(status), "code": "try_later", "title": "Try again later",
                              "detail": f"attempt {attempt} of {failures} planned failures"}]}
        response = HttpResponse(json.dumps(errors), status=status, content_type=JSON_API)
        if retry_after != "none":
            if request.GET.get("date") == "1":
                response["Retry-After"] = formatdate(time.time() + float(retry_after), usegmt=True)
            else:
                response["Retry-After"] = retry_after
        return response
    return _document({"attempts": attempt})


def attempts(request):
    """How many times `key` was asked for."""
    with _lock:
        n = _attempts.get(request.GET.get("key", "default"), 0)
    return _document({"attempts": n})


def html(request):
    """A 200 with an HTML page, as a misconfigured proxy or login page would answer."""
    return HttpResponse("<!doctype html><html><body><h1>Sign in</h1></body></html>", content_type="text/html")


def plain_json(request):
    """A JSON:API document served as application/json."""
    return HttpResponse(json.dumps({"data": [], "meta": {"plain": True}}), content_type="application/json")


def truncated(request):
    """A JSON:API content type with a body cut off in the middle of a document."""
    return HttpResponse('{"data":[{"type":"articles","id":"1","attributes":{"title":"cut', content_type=JSON_API)


def big(request):
    """A streamed document of about `mb` MiB (at most 4096): `articles` resources with ids
    from 1, written a MiB at a time as the client reads them (no Content-Length)."""
    mb = max(1, min(int(request.GET.get("mb", "64")), 4096))
    padding = "x" * 120

    def chunks():
        yield '{"data":['
        n = 0
        for block in range(mb):
            parts = []
            size = 0
            while size < 1 << 20:
                n += 1
                text = '%s{"type":"articles","id":"%d","attributes":{"title":"article %d","body":"%s"}}' % (
                    "," if n > 1 else "", n, n, padding)
                parts.append(text)
                size += len(text)
            yield "".join(parts)
        yield '],"meta":{"count":%d}}' % n

    return StreamingHttpResponse(chunks(), content_type=JSON_API)


def trickle(request):
    """A valid document sent one byte every `every` seconds (at most 5), `count` bytes of
    padding in all (at most 600), so it never goes quiet for long but takes long in all."""
    every = min(float(request.GET.get("every", "0.5")), 5.0)
    count = max(1, min(int(request.GET.get("count", "10")), 600))

    def chunks():
        yield '{"data":[]'
        for _ in range(count):
            time.sleep(every)
            yield " "
        yield '}'

    return StreamingHttpResponse(chunks(), content_type=JSON_API)


def health(request):
    return _document({"ok": True})


def cached(request):
    """A document for the client's cache tests: `Cache-Control: max-age=<max_age>` (60 by
    default; `cache_control=...` sends that instead), an ETag with `etag=1` (a `304` to an
    `If-None-Match` of it), and `meta.served`, how many times `key` reached the server (a
    `304` included; `/test/attempts?key=cached:KEY` reads it without counting)."""
    key = "cached:" + request.GET.get("key", "default")
    with _lock:
        _attempts[key] = _attempts.get(key, 0) + 1
        served = _attempts[key]
    etag = '"v1"' if request.GET.get("etag") == "1" else None
    control = request.GET.get("cache_control", "max-age=" + request.GET.get("max_age", "60"))
    if etag and request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
    else:
        body = {"data": [{"type": "articles", "id": str(i), "attributes": {"title": f"cached {i}"}} for i in (1, 2)],
                "meta": {"served": served}}
        response = HttpResponse(json.dumps(body), content_type=JSON_API)
    response["Cache-Control"] = control
    response["Date"] = formatdate(time.time(), usegmt=True)
    if etag:
        response["ETag"] = etag
    return response
