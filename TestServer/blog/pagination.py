"""The three page strategies the client knows: page number/size (articles, tags),
offset/limit (comments) and an opaque cursor (authors)."""
from rest_framework.pagination import CursorPagination as DRFCursorPagination
from rest_framework.views import Response
from rest_framework_json_api import pagination


class PageNumberPagination(pagination.JsonApiPageNumberPagination):
    """`page[number]` and `page[size]` (at most 1000)."""

    max_page_size = 1000


class LimitOffsetPagination(pagination.JsonApiLimitOffsetPagination):
    """`page[offset]` and `page[limit]` (at most 1000)."""

    default_limit = 20
    max_limit = 1000


class CursorPagination(DRFCursorPagination):
    """`page[cursor]` (opaque) and `page[size]`: next and prev links only."""

    cursor_query_param = "page[cursor]"
    page_size_query_param = "page[size]"
    page_size = 20
    max_page_size = 1000
    ordering = "id"

    def get_paginated_response(self, data):
        return Response(
            {
                "results": data,
                "meta": {"pagination": {"size": self.page_size}},
                "links": {"next": self.get_next_link(), "prev": self.get_previous_link()},
            }
        )
