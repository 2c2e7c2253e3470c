"""Fills an empty database with the same blog every time: 120 authors, 40 tags, 2,500
articles (with 0 to 3 tags each) and 5,000 comments."""
import random
from datetime import datetime, timedelta, timezone

from django.core.management.base import BaseCommand
from django.db import transaction

from blog.models import Article, Author, Comment, Tag

AUTHORS = 120
TAGS = 40
ARTICLES = 2500
COMMENTS = 5000

WORDS = (
    "stream parser graph resource linkage compound document sparse fieldset include "
    "cursor offset limit page crème brûlée naïve café 東京 Zürich \"quoted\" back\\slash "
    "tab\tnewline emoji 🚲 bikeshed yajl token chunk"
).split(" ")


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


class Command(BaseCommand):
    help = "Seed the database deterministically (only when it is empty)."

    def handle(self, *args, **options):
        if Author.objects.exists():
            self.stdout.write("already seeded")
            return
        rng = random.Random(20261122)
        base = datetime(2024, 1, 1, tzinfo=timezone.utc)
        with transaction.atomic():
            Author.objects.bulk_create(
                Author(id=i, name=f"Author {i}", email=f"author{i}@example.com", bio=sentence(rng, 12))
                for i in range(1, AUTHORS + 1)
            )
            Tag.objects.bulk_create(Tag(id=i, name=f"tag-{i}") for i in range(1, TAGS + 1))
            Article.objects.bulk_create(
                Article(
                    id=i,
                    title=f"Article {i}: {sentence(rng, 4)}",
                    body=sentence(rng, 40),
                    rating=rng.randint(0, 5),
                    published_at=base + timedelta(minutes=37 * i),
                    author_id=rng.randint(1, AUTHORS),
                )
                for i in range(1, ARTICLES + 1)
            )
            links = Article.tags.through
            rows = []
            for i in range(1, ARTICLES + 1):
                for t in sorted(rng.sample(range(1, TAGS + 1), rng.randint(0, 3))):
                    rows.append(links(article_id=i, tag_id=t))
            links.objects.bulk_create(rows)
            Comment.objects.bulk_create(
                Comment(
                    id=i,
                    body=sentence(rng, 15),
                    created_at=base + timedelta(minutes=11 * i),
                    article_id=rng.randint(1, ARTICLES),
                    author_id=rng.randint(1, AUTHORS) if i % 10 else None,
                )
                for i in range(1, COMMENTS + 1)
            )
        self.stdout.write(f"seeded {AUTHORS} authors, {TAGS} tags, {ARTICLES} articles, {COMMENTS} comments")
