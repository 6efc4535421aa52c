#!/usr/bin/env python3
# requires: pip install -r scripts/presentation-requirements.txt (use its own
# venv: iiif-prezi3 caps Pillow at 12.0.0, iiif-validator-requirements.txt pins 13)
"""Check IIIF Presentation 3.0 Manifests and Collections.

    python3 scripts/check-presentation.py [--schema iiif_3_0.json] FILE|- ...
    python3 scripts/check-presentation.py --url http://127.0.0.1:8080/iiif/m/x

Each document is loaded with iiif-prezi3's pydantic models, picked by its
"type" (exactly "Manifest" or "Collection"). With --schema it is also checked
against a JSON Schema the way the official IIIF presentation-validator checks
3.0 documents (Draft 7, no format checking, @context must name version 3, and
for --url the id must equal the URL). The two catch different mistakes, so
use both where the schema file is at hand.

Prints `ok NAME` or `FAIL NAME: first errors` per document; exits 0 only if
every document is ok, 1 if any failed, 2 on a usage error.
"""

import argparse
import json
import sys
import urllib.parse
import urllib.request

import jsonschema
import pydantic
from iiif_prezi3 import Collection, Manifest
from iiif_prezi3.base import Base

MODELS = {"Manifest": Manifest, "Collection": Collection}
SCHEMA_BRANCH = {"Manifest": "manifest", "Collection": "collection"}
CONTEXT_3 = "http://iiif.io/api/presentation/3/context.json"
ACCEPT = f'application/ld+json;profile="{CONTEXT_3}"'
MAX_ERRORS = 2  # shown per checker, so schema errors are not hidden behind prezi3 ones


def disable_prezi3_defaults():
    # iiif-prezi3 registers "defaulters" (AutoId, AutoLang, AutoItems, AutoList)
    # on its models, and because Base overrides __init__, pydantic runs them
    # while validating every nested object too. They silently repair the input:
    # a plain-string label becomes {"none": [...]}, a missing id becomes
    # http://example.org/iiif/N, missing items becomes [], a lone service or
    # thumbnail object is wrapped in a list. Good for building manifests, wrong
    # for checking them, so drop them for this process.
    stack = [Base]
    while stack:
        cls = stack.pop()
        if "_defaulters" in cls.__dict__:
            cls._defaulters = []
        stack.extend(cls.__subclasses__())


disable_prezi3_defaults()


def short(value, limit=60):
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def json_path(parts):
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def one_per_path(prefix, found):
    # found: (json path, message) pairs, possibly several per path when every
    # alternative of a union/oneOf failed; report one line per path.
    by_path = {}
    for path, message in found:
        if message not in by_path.setdefault(path, []):
            by_path[path].append(message)
    lines = []
    for path, messages in by_path.items():
        line = f"{prefix} {path}: {messages[0]}"
        if len(line) > 200:
            line = line[:197] + "..."
        if len(messages) > 1:
            line += f" [+{len(messages) - 1} alternative(s)]"
        lines.append(line)
    return lines


# pydantic names each member of a Union in loc ("ManifestRef", "dict[...]",
# "constrained-str", "str"); these are not keys of the JSON document.
TYPE_TAGS = {"str", "int", "float", "bool", "url", "list", "dict", "none"}
# Errors saying a value is of the wrong JSON type for a union member.
WRONG_KIND = {"dict_type", "list_type", "model_type", "model_attributes_type", "string_type", "url_type", "int_type"}


def is_json_key(part):
    return isinstance(part, int) or part == "@context" or (
        part[:1].islower() and part.isidentifier() and part not in TYPE_TAGS
    )


def got(err):
    # For a missing field the input is the whole parent object: not useful.
    return "" if err["type"] == "missing" else f" (got {short(err['input'])})"


def prezi3_errors(data, model):
    try:
        model.model_validate(data)
        return []
    except pydantic.ValidationError as e:
        errors = [(tuple(err["loc"]), err) for err in e.errors()]
    # A failed Union reports every member: an Image body with a bad format also
    # fails as TextualBody, SpecificResource and Choice. A member whose "type"
    # did not match, or that wants another JSON type, was meant for another
    # kind of object, so drop it when some other member of the same union
    # was not (then that one holds the real mistake).
    members = {loc[: i + 1] for loc, _ in errors for i, part in enumerate(loc) if not is_json_key(part)}
    wrong = {
        loc[:-1] if loc[-1] == "type" else loc
        for loc, err in errors
        if (loc[-1] == "type" and loc[:-1] in members and err["type"] in ("string_pattern_mismatch", "literal_error"))
        or (loc in members and err["type"] in WRONG_KIND)
    }
    plausible_sites = {m[:-1] for m in members - wrong}

    def misfit(loc):
        return any(loc[: i + 1] in wrong and loc[:i] in plausible_sites for i in range(len(loc)))

    found = [
        (json_path([p for p in loc if is_json_key(p)]), err["msg"] + got(err))
        for loc, err in errors
        if not misfit(loc)
    ]
    return one_per_path("prezi3", found)


def schema_leaves(err):
    # A oneOf/anyOf error only says "not valid under any of the given
    # schemas"; its context holds each alternative's errors. As for prezi3,
    # skip alternatives made for another type (their "type" property or the
    # JSON type did not match) and descend into the rest.
    if not err.context:
        return [err]
    alternatives = {}
    for sub in err.context:
        alternatives.setdefault(sub.relative_schema_path[0], []).append(sub)
    here = list(err.absolute_path)

    def other_type(sub):
        path = list(sub.absolute_path)
        return (path == here + ["type"] and sub.validator in ("pattern", "const", "enum")) or (
            path == here and sub.validator == "type"
        )

    kept = [subs for subs in alternatives.values() if not any(map(other_type, subs))]
    if not kept:  # wrong type for every alternative: report them all
        return [sub for subs in alternatives.values() for sub in subs]
    return [leaf for subs in kept for sub in subs for leaf in schema_leaves(sub)]


def schema_message(err):
    # jsonschema puts repr(instance) into its messages; for objects that is the
    # whole subtree, which the path already points at.
    if isinstance(err.instance, (dict, list)):
        return err.message.replace(repr(err.instance), "{...}" if isinstance(err.instance, dict) else "[...]")
    return err.message


def context_is_v3(data):
    # The official validator picks the version from @context (the last entry of
    # a list) before it looks at the schema; without a version-3 context it
    # never reaches the 3.0 schema and reports "Unsupported IIIF version".
    context = data.get("@context", "")
    if isinstance(context, list):
        context = context[-1] if context else ""
    return isinstance(context, str) and CONTEXT_3 in context


def schema_errors(data, kind, schema, url):
    out = []
    if not context_is_v3(data):
        out.append(f"schema $.@context: must be (or end with) {CONTEXT_3}")
    # Same call as the official validator: Draft7Validator(schema), no
    # format_checker (so "format": "uri"/"date-time" are not enforced), and all
    # $refs are local to the file, so nothing is fetched.
    if list(jsonschema.Draft7Validator(schema).iter_errors(data)):
        # The root is oneOf(manifest, collection, ...), whose only error says
        # "not valid under any of the given schemas". For a readable message,
        # check again against just the branch for this type, as the official
        # validator's error filtering also does.
        branch = schema
        if SCHEMA_BRANCH[kind] in schema.get("classes", {}):  # not in some other schema
            branch = dict(schema, oneOf=[{"$ref": f"#/classes/{SCHEMA_BRANCH[kind]}"}])
        found = [
            (json_path(leaf.absolute_path), schema_message(leaf))
            for err in jsonschema.Draft7Validator(branch).iter_errors(data)
            for leaf in schema_leaves(err)
        ]
        out += one_per_path("schema", found)
        if not found:
            out.append("schema $: valid as a " + kind + " but not under exactly one of the schema's top-level types")
    # The official validator's only check beyond the schema: a document fetched
    # from a URL must have that URL as its id.
    if url is not None and data.get("id") != url:
        out.append(f"schema $.id: {short(data.get('id'))} is not the URL it was fetched from")
    return out


def check(data, schema=None, url=None):
    """Return one list of error messages per checker that found any."""
    if not isinstance(data, dict):
        return [["not a JSON object"]]
    kind = data.get("type")
    if kind not in MODELS:
        # Both the models and the schema match type with "^Manifest" (no "$"),
        # so "Manifests" would otherwise pass; insist on the exact name.
        return [[f"$.type: must be Manifest or Collection, got {short(kind)}"]]
    found = [prezi3_errors(data, MODELS[kind])]
    if schema is not None:
        found.append(schema_errors(data, kind, schema, url))
    return [errors for errors in found if errors]


def summary(found):
    shown = [e for errors in found for e in errors[:MAX_ERRORS]]
    hidden = sum(len(errors) for errors in found) - len(shown)
    return "; ".join(shown) + (f" (+{hidden} more)" if hidden else "")


class LoopbackOnlyRedirects(urllib.request.HTTPRedirectHandler):
    # urllib follows redirects by itself; without this a 127.0.0.1 server
    # could send us to any other host.
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        require_loopback(newurl)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def require_loopback(url):
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or parts.hostname != "127.0.0.1":
        raise ValueError(f"only http(s)://127.0.0.1 URLs are allowed: {url}")


def fetch(url):
    require_loopback(url)
    # An empty ProxyHandler ignores *_proxy variables, so requests stay local.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), LoopbackOnlyRedirects())
    request = urllib.request.Request(url, headers={"Accept": ACCEPT})
    with opener.open(request, timeout=30) as response:
        return response.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", metavar="FILE", help="JSON file, or - for stdin")
    parser.add_argument("--url", action="append", default=[], help="fetch from http://127.0.0.1 (repeatable)")
    parser.add_argument("--schema", metavar="PATH", help="also validate against this JSON Schema (Draft 7)")
    args = parser.parse_args()
    if not args.files and not args.url:
        parser.error("give at least one FILE, - or --url")
    for url in args.url:
        try:
            require_loopback(url)
        except ValueError as e:
            parser.error(str(e))

    schema = None
    if args.schema:
        try:
            with open(args.schema, encoding="utf-8") as f:
                schema = json.load(f)
            jsonschema.Draft7Validator.check_schema(schema)
        except (OSError, ValueError, jsonschema.SchemaError) as e:
            parser.error(f"--schema {args.schema}: {e}")

    sources = [(name, None) for name in args.files] + [(url, url) for url in args.url]
    failed = 0
    for name, url in sources:
        try:
            if url is not None:
                raw = fetch(url)
            elif name == "-":
                raw = sys.stdin.buffer.read()
            else:
                with open(name, "rb") as f:
                    raw = f.read()
            found = check(json.loads(raw), schema, url)
        except (OSError, ValueError) as e:  # unreadable, unreachable or not JSON
            found = [[f"{type(e).__name__}: {e}"]]
        if found:
            failed += 1
            print(f"FAIL {name}: {summary(found)}")
        else:
            print(f"ok {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
