"""JSON:API endpoints: list (paginated, filtered, sorted, with include and sparse
fieldsets), read, create, update and delete."""
from django.db.models import Prefetch
from rest_framework_json_api.views import ModelViewSet, RelationshipView

from . import pagination
from .models import Article, Author, Comment, Tag
from .serializers import ArticleSerializer, AuthorSerializer, CommentSerializer, TagSerializer


class AuthorViewSet(ModelViewSet):
    queryset = Author.objects.all()
    serializer_class = AuthorSerializer
    pagination_class = pagination.CursorPagination
    filterset_fields = {"name": ("exact", "icontains")}
    ordering_fields = ("id", "name")


class TagViewSet(ModelViewSet):
    queryset = Tag.objects.all()
    serializer_class = TagSerializer
    filterset_fields = {"name": ("exact", "icontains", "in")}
    ordering_fields = ("id", "name")
    ordering = ("id",)


class ArticleViewSet(ModelViewSet):
    queryset = Article.objects.select_related("author").prefetch_related(
        "tags", Prefetch("comments", queryset=Comment.objects.only("id", "article_id"))
    )
    serializer_class = ArticleSerializer
    filterset_fields = {
        "id": ("exact", "in"),
        "title": ("exact", "icontains"),
        "rating": ("exact", "gte", "lte", "in"),
        "author": ("exact", "in"),
        "tags__name": ("exact",),
    }
    ordering_fields = ("id", "title", "rating", "published_at")
    ordering = ("id",)
    search_fields = ("title",)


class CommentViewSet(ModelViewSet):
    queryset = Comment.objects.select_related("author", "article")
    serializer_class = CommentSerializer
    pagination_class = pagination.LimitOffsetPagination
    filterset_fields = {"article": ("exact", "in"), "author": ("exact",)}
    ordering_fields = ("id", "created_at")
    ordering = ("id",)


class ArticleRelationshipView(RelationshipView):
    queryset = Article.objects.all()
    self_link_view_name = "article-relationships"
