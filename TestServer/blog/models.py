"""A small blog: authors write articles, articles have tags and comments."""
from django.db import models


class Author(models.Model):
    name = models.CharField(max_length=100)
    email = models.EmailField()
    bio = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]

    class JSONAPIMeta:
        resource_name = "authors"


class Tag(models.Model):
    name = models.CharField(max_length=50, unique=True)

    class Meta:
        ordering = ["id"]

    class JSONAPIMeta:
        resource_name = "tags"


class Article(models.Model):
    title = models.CharField(max_length=200)
    body = models.TextField()
    rating = models.IntegerField()
    published_at = models.DateTimeField()
    author = models.ForeignKey(Author, related_name="articles", on_delete=models.CASCADE)
    tags = models.ManyToManyField(Tag, related_name="articles", blank=True)

    class Meta:
        ordering = ["id"]

    class JSONAPIMeta:
        resource_name = "articles"


class Comment(models.Model):
    body = models.TextField()
    created_at = models.DateTimeField()
    article = models.ForeignKey(Article, related_name="comments", on_delete=models.CASCADE)
    author = models.ForeignKey(Author, related_name="comments", null=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["id"]

    class JSONAPIMeta:
        resource_name = "comments"
