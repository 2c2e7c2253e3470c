"""`/cursor/articles`: the articles under the Cursor Pagination profile
(https://jsonapi.org/profiles/ethanresnick/cursor-pagination), written by hand so that every
member the profile defines is under the tests' control: `page[size]` (10 by default, at most
100), `page[after]` and `page[before]` with opaque cursors, each resource's
`meta.page.cursor`, `links.prev`/`links.next` (`null` at either end),
`meta.page.estimatedTotal.bestGuess`, and the profile's errors (`links.type`)."""
import base64
import json
from urllib.parse import urlencode

from django.http import HttpResponse

from blog.models import Article

PROFILE = "https://jsonapi.org/profiles/ethanresnick/cursor-pagination"
MEDIA_TYPE = f'application/vnd.api+json; profile="{PROFILE}"'
MAX_SIZE = 100


def _cursor(article_id):
    return base64.urlsafe_b64encode(f"article:{article_id}".encode()).decode().rstrip("=")


def _decode(cursor):
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, _, number = text.partition(":")
        return int(number) if kind == "article" else None
    except (ValueError, UnicodeDecodeError):
        return None


def _error(kind, title, parameter, meta=None):
    error = {"status": "400", "title": title, "links": {"type": f"{PROFILE}/{kind}"}, "source": {"parameter": parameter}}
    if meta is not None:
        error["meta"] = meta
    return HttpResponse(json.dumps({"errors": [error]}), status=400, content_type=MEDIA_TYPE)


def cursor_articles(request):
    params = request.GET
    sort = params.get("sort")
    if sort not in (None, "id"):
        return _error("unsupported-sort", "Unsupported sort", "sort")
    try:
        size = int(params.get("page[size]", "10"))
    except ValueError:
        size = 0
    if size < 1:
        return _error("invalid-parameter-value", "Invalid page size", "page[size]")
    if size > MAX_SIZE:
        return _error("max-size-exceeded", "Page size requested is too large.", "page[size]",
                      {"page": {"maxSize": MAX_SIZE}})
    after = before = None
    for name in ("page[after]", "page[before]"):
        if name in params:
            value = _decode(params[name])
            if value is None:
                return _error("invalid-parameter-value", "Invalid cursor", name)
            if name == "page[after]":
                after = value
            else:
                before = value
    if after is not None and before is not None:
        return _error("range-pagination-not-supported", "Range pagination not supported", "page[before]")

    articles = Article.objects.order_by("id")
    if before is not None:
        page = list(articles.filter(id__lt=before).order_by("-id")[:size])[::-1]
    elif after is not None:
        page = list(articles.filter(id__gt=after)[:size])
    else:
        page = list(articles[:size])

    base = request.build_absolute_uri(request.path)

    def link(**cursor):
        query = {"page[size]": str(size), **cursor}
        return f"{base}?{urlencode(query)}"

    prev_link = next_link = None
    if page:
        if articles.filter(id__lt=page[0].id).exists():
            prev_link = link(**{"page[before]": _cursor(page[0].id)})
        if articles.filter(id__gt=page[-1].id).exists():
            next_link = link(**{"page[after]": _cursor(page[-1].id)})
    elif before is not None and articles.filter(id__gte=before).exists():
        next_link = link(**{"page[after]": _cursor(before - 1)})
    data = [
        {
            "type": "articles",
            "id": str(a.id),
            "attributes": {"title": a.title, "rating": a.rating},
            "relationships": {"author": {"data": {"type": "authors", "id": str(a.author_id)}}},
            "meta": {"page": {"cursor": _cursor(a.id)}},
        }
        for a in page
    ]
    document = {
        "data": data,
        "links": {"self": request.build_absolute_uri(), "prev": prev_link, "next": next_link},
        "meta": {"page": {"estimatedTotal": {"bestGuess": articles.count()}}},
        "jsonapi": {"version": "1.1", "profile": [PROFILE]},
    }
    return HttpResponse(json.dumps(document), content_type=MEDIA_TYPE)
