"""`/operations`: JSON:API's Atomic Operations extension (https://jsonapi.org/ext/atomic) over
authors, tags and articles, all operations of a request in one database transaction.

Supported: `add` (a new resource, with a `lid` that later operations may name in `ref.lid`
or in relationship data), `update` (attributes and relationships of a resource), `remove`
(a resource), and on `ref.relationship`: `update` (replace), `add` and `remove` (to-many
members). A failing operation rolls every operation back; the error's `source.pointer`
starts with `/atomic:operations/N`."""
import json

from django.db import transaction
from django.http import HttpResponse
from django.utils.dateparse import parse_datetime
from django.views.decorators.csrf import csrf_exempt

from blog.models import Article, Author, Tag

EXT = "https://jsonapi.org/ext/atomic"
MEDIA_TYPE = f'application/vnd.api+json; ext="{EXT}"'
MODELS = {"authors": Author, "tags": Tag, "articles": Article}
ATTRIBUTES = {
    "authors": ("name", "email", "bio"),
    "tags": ("name",),
    "articles": ("title", "body", "rating", "published_at"),
}
TO_ONE = {"articles": {"author": "authors"}}
TO_MANY = {"articles": {"tags": "tags"}}


class OperationError(Exception):
    def __init__(self, status, title, pointer, detail=None):
        super().__init__(title)
        self.status, self.title, self.pointer, self.detail = status, title, pointer, detail


def _response(document, status=200):
    return HttpResponse(json.dumps(document), status=status, content_type=MEDIA_TYPE)


def _error(status, title, pointer=None, detail=None):
    error = {"status": str(status), "title": title}
    if pointer is not None:
        error["source"] = {"pointer": pointer}
    if detail:
        error["detail"] = detail
    return _response({"errors": [error]}, status)


def _resource(kind, obj):
    out = {"type": kind, "id": str(obj.pk), "attributes": {}}
    for name in ATTRIBUTES[kind]:
        value = getattr(obj, name)
        out["attributes"][name] = value.isoformat() if hasattr(value, "isoformat") else value
    relationships = {}
    for name, target in TO_ONE.get(kind, {}).items():
        related = getattr(obj, name + "_id")
        relationships[name] = {"data": None if related is None else {"type": target, "id": str(related)}}
    for name, target in TO_MANY.get(kind, {}).items():
        relationships[name] = {"data": [{"type": target, "id": str(t.pk)} for t in getattr(obj, name).order_by("pk")]}
    if relationships:
        out["relationships"] = relationships
    return out


class Batch:
    def __init__(self):
        self.lids = {}

    def find(self, kind, identifier, pointer):
        if kind not in MODELS:
            raise OperationError(404, "Unknown type", pointer + "/type", f"no resource type {kind!r} here")
        if not isinstance(identifier, dict):
            raise OperationError(400, "Invalid identifier", pointer)
        pk = identifier.get("id")
        if pk is None and "lid" in identifier:
            pk = self.lids.get((kind, identifier["lid"]))
            if pk is None:
                raise OperationError(400, "Unknown lid", pointer + "/lid", f"no earlier operation added {identifier['lid']!r}")
        try:
            return MODELS[kind].objects.get(pk=int(pk))
        except (TypeError, ValueError, MODELS[kind].DoesNotExist):
            raise OperationError(404, "Not found", pointer, f"no {kind} {pk!r}")

    def apply_fields(self, kind, obj, data, pointer, creating):
        attributes = data.get("attributes", {})
        for name, value in attributes.items():
            if name not in ATTRIBUTES[kind]:
                raise OperationError(400, "Unknown attribute", f"{pointer}/attributes/{name}")
            if name == "published_at":
                value = parse_datetime(value) if isinstance(value, str) else None
                if value is None:
                    raise OperationError(422, "Invalid date", f"{pointer}/attributes/{name}")
            setattr(obj, name, value)
        later = []
        for name, rel in data.get("relationships", {}).items():
            linkage = rel.get("data") if isinstance(rel, dict) else None
            where = f"{pointer}/relationships/{name}/data"
            if name in TO_ONE.get(kind, {}):
                if linkage is None:
                    raise OperationError(422, "Required relationship", where)
                setattr(obj, name, self.find(TO_ONE[kind][name], linkage, where))
            elif name in TO_MANY.get(kind, {}):
                if not isinstance(linkage, list):
                    raise OperationError(400, "Expected an array", where)
                later.append((name, [self.find(TO_MANY[kind][name], item, f"{where}/{i}") for i, item in enumerate(linkage)]))
            else:
                raise OperationError(400, "Unknown relationship", f"{pointer}/relationships/{name}")
        if creating:
            missing = [n for n in ATTRIBUTES[kind] if n != "bio" and getattr(obj, n, None) in (None, "")]
            missing += [n for n in TO_ONE.get(kind, {}) if getattr(obj, n + "_id") is None]
            if missing:
                raise OperationError(422, "Missing members", pointer, "required: " + ", ".join(missing))
        obj.save()
        for name, targets in later:
            getattr(obj, name).set(targets)

    def run(self, index, operation):
        pointer = f"/atomic:operations/{index}"
        if not isinstance(operation, dict) or operation.get("op") not in ("add", "update", "remove"):
            raise OperationError(400, "Invalid operation", pointer + "/op")
        op, ref, data = operation["op"], operation.get("ref"), operation.get("data")
        if ref is not None and ref.get("relationship"):
            obj = self.find(ref.get("type"), ref, pointer + "/ref")
            kind, name = ref["type"], ref["relationship"]
            where = pointer + "/data"
            if name in TO_ONE.get(kind, {}) and op == "update":
                if data is None:
                    raise OperationError(422, "Required relationship", where)
                setattr(obj, name, self.find(TO_ONE[kind][name], data, where))
                obj.save()
            elif name in TO_MANY.get(kind, {}) and isinstance(data, list):
                targets = [self.find(TO_MANY[kind][name], item, f"{where}/{i}") for i, item in enumerate(data)]
                getattr(obj, name).set(targets) if op == "update" else (
                    getattr(obj, name).add(*targets) if op == "add" else getattr(obj, name).remove(*targets))
            else:
                raise OperationError(400, "Invalid relationship operation", pointer + "/ref/relationship")
            return {}
        if op == "remove":
            if ref is None:
                raise OperationError(400, "A remove needs ref", pointer)
            self.find(ref.get("type"), ref, pointer + "/ref").delete()
            return {}
        if not isinstance(data, dict) or data.get("type") not in MODELS:
            raise OperationError(400, "Invalid resource", pointer + "/data")
        kind = data["type"]
        if op == "add":
            if "id" in data:
                raise OperationError(403, "Client-generated ids are not supported", pointer + "/data/id")
            obj = MODELS[kind]()
            self.apply_fields(kind, obj, data, pointer + "/data", creating=True)
            if "lid" in data:
                self.lids[(kind, data["lid"])] = obj.pk
        else:
            obj = self.find(kind, data, pointer + "/data")
            self.apply_fields(kind, obj, data, pointer + "/data", creating=False)
        return {"data": _resource(kind, obj)}


@csrf_exempt
def operations(request):
    if request.method != "POST":
        return _error(405, "Method not allowed", detail="POST an atomic:operations document")
    if f'ext="{EXT}"' not in request.headers.get("Content-Type", "").replace("'", '"'):
        return _error(415, "Unsupported media type", detail=f"the request's Content-Type must be {MEDIA_TYPE}")
    try:
        document = json.loads(request.body)
    except ValueError:
        return _error(400, "Invalid JSON")
    operations = document.get("atomic:operations") if isinstance(document, dict) else None
    if not isinstance(operations, list):
        return _error(400, "Missing atomic:operations", "")
    batch = Batch()
    try:
        with transaction.atomic():
            results = [batch.run(i, op) for i, op in enumerate(operations)]
    except OperationError as e:
        return _error(e.status, e.title, e.pointer, e.detail)
    if all(r == {} for r in results):
        return HttpResponse(status=204)
    return _response({"atomic:results": results})
