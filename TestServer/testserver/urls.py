"""Routes: the JSON:API resources, and /test/ endpoints for the client's failure tests."""
from django.urls import include, path
from rest_framework.routers import DefaultRouter

from blog import atomic_views, cursor_views, testing_views, views

router = DefaultRouter(trailing_slash=False)
router.register("authors", views.AuthorViewSet)
router.register("articles", views.ArticleViewSet)
router.register("comments", views.CommentViewSet)
router.register("tags", views.TagViewSet)

urlpatterns = [
    path("", include(router.urls)),
    path(
        "articles/<int:pk>/relationships/<related_field>",
        views.ArticleRelationshipView.as_view(),
        name="article-relationships",
    ),
    path("test/slow", testing_views.slow),
    path("test/flaky", testing_views.flaky),
    path("test/attempts", testing_views.attempts),
    path("test/html", testing_views.html),
    path("test/plain-json", testing_views.plain_json),
    path("test/truncated", testing_views.truncated),
    path("test/health", testing_views.health),
    path("test/big", testing_views.big),
    path("test/trickle", testing_views.trickle),
    path("test/cached", testing_views.cached),
    path("cursor/articles", cursor_views.cursor_articles),
    path("operations", atomic_views.operations),
]
