"""JSON:API serializers: sparse fieldsets and `include` come from
djangorestframework-jsonapi's ModelSerializer."""
from rest_framework_json_api import serializers
from rest_framework_json_api.relations import ResourceRelatedField

from .models import Article, Author, Comment, Tag


class AuthorSerializer(serializers.ModelSerializer):
    class Meta:
        model = Author
        fields = ("name", "email", "bio")


class TagSerializer(serializers.ModelSerializer):
    class Meta:
        model = Tag
        fields = ("name",)


class ArticleSerializer(serializers.ModelSerializer):
    author = ResourceRelatedField(queryset=Author.objects)
    tags = ResourceRelatedField(queryset=Tag.objects, many=True, required=False)
    comments = ResourceRelatedField(many=True, read_only=True)

    included_serializers = {
        "author": AuthorSerializer,
        "tags": TagSerializer,
        "comments": "blog.serializers.CommentSerializer",
    }

    class Meta:
        model = Article
        fields = ("title", "body", "rating", "published_at", "author", "tags", "comments")

    def validate_rating(self, value):
        if not 0 <= value <= 5:
            raise serializers.ValidationError("rating must be between 0 and 5", code="out_of_range")
        return value


class CommentSerializer(serializers.ModelSerializer):
    article = ResourceRelatedField(queryset=Article.objects)
    author = ResourceRelatedField(queryset=Author.objects, required=False, allow_null=True)

    included_serializers = {
        "article": ArticleSerializer,
        "author": AuthorSerializer,
    }

    class Meta:
        model = Comment
        fields = ("body", "created_at", "article", "author")
