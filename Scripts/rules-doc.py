#!/usr/bin/env python3
"""Writes docs/rules.md: every rule id the code reports (Sources/JSONAPIStream/Errors/Rule.swift),
its one-line summary, and for each a minimal failing document from Corpus/invalid/ (and a valid
near miss from Corpus/valid/ where there is one). Run it after changing a rule or a fixture;
a test (DocsTests) fails when docs/rules.md is not what this script writes.

Usage: Scripts/rules-doc.py [--check]
"""
import json, os, re, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
source = open(os.path.join(root, "Sources/JSONAPIStream/Errors/Rule.swift")).read()
summaries = dict(re.findall(r'case \.(\w\d\d): "((?:[^"\\]|\\.)*)"', source))
invalid = json.load(open(os.path.join(root, "Corpus/invalid/manifest.json")))
valid = json.load(open(os.path.join(root, "Corpus/valid/manifest.json")))


def smallest(manifest, folder, rule):
    names = [n for n, m in manifest.items() if m.get("rule") == rule]
    if not names:
        return None
    return min(names, key=lambda n: (os.path.getsize(os.path.join(root, folder, n)), n))


groups = [
    ("J", "JSON text", "Checked on every input, in every mode: always errors (J10 and J11 have options). J00 is plain RFC 8259 syntax as yajl reports it; J01-J12 are what this library adds to yajl 2.1.0."),
    ("R", "JSON:API documents", "The MUST rules of JSON:API 1.1 that one document can show. Errors with `--strict` and in `validate`; by default `normalize` reports them as warnings and keeps the member."),
    ("C", "Request documents", "Checked with `--context create`, `update` or `relationship-update`."),
    ("A", "The Atomic Operations extension", "Checked in a document that applies the extension (https://jsonapi.org/ext/atomic): its `jsonapi.ext` lists the extension's URI before `atomic:operations` or `atomic:results` comes, or `--extension atomic` applies it to every document. They are checked when the document has closed: the position is the document's, or where `atomic:operations` begins, and the pointer names the member at fault. Errors with `--strict` and in `validate`; warnings by default."),
    ("N", "The normalizer", "What the output writers report about the data they are given (not rules of the spec)."),
]
out = ["# Rules", "",
       "Every diagnostic carries one of these ids, and an id never changes meaning. Each entry",
       "gives the rule in one line and the smallest document in `Corpus/invalid/` that breaks it",
       "(with the options it needs and the JSON pointer the error names); `Corpus/valid/` holds",
       "near misses that must pass. This file is written by `Scripts/rules-doc.py` from",
       "`Rule.swift` and the corpus manifests; a test checks that it is current.", ""]
for prefix, title, intro in groups:
    out += [f"## {prefix}: {title}", "", intro, ""]
    for rule in sorted(r for r in summaries if r.startswith(prefix)):
        out.append(f"### {rule}")
        out.append("")
        summary = summaries[rule].replace("\\\\", "\\")
        out.append(summary[0].upper() + summary[1:] + ".")
        out.append("")
        name = smallest(invalid, "Corpus/invalid", rule)
        if name:
            m = invalid[name]
            text = open(os.path.join(root, "Corpus/invalid", name), "rb").read()
            where = []
            if "context" in m:
                where.append(f"context `{m['context']}`")
            if "options" in m:
                where.append("options " + ", ".join(
                    f"`--{k} {' '.join(map(str, v)) if isinstance(v, list) else v}`" for k, v in m["options"].items()))
            if "pointer" in m:
                where.append(f"pointer `{m['pointer'] or '(the root)'}`")
            if "line" in m:
                where.append(f"line {m['line']}, column {m['column']}")
            out.append(f"Fails: [`Corpus/invalid/{name}`](../Corpus/invalid/{name})" + (" (" + "; ".join(where) + ")" if where else ""))
            if len(text) <= 240 and all(b >= 0x20 or b in (0x0A, 0x09) for b in text) and b"```" not in text:
                try:
                    shown = text.decode("utf-8").rstrip("\n")
                    out += ["", "```json", shown, "```"]
                except UnicodeDecodeError:
                    out.append(" (bytes that are not UTF-8; see the file)")
            if m.get("note"):
                out += ["", m["note"][0].upper() + m["note"][1:] + ("" if m["note"].endswith(".") else ".")]
        else:
            out.append("No failing fixture: " + {
                "J04": "it says how numbers are kept (their exact text), which every fixture with a number checks.",
                "J07": "it says how input reaches yajl (at token boundaries), which every fixture read in small chunks checks.",
                "J08": "it says how positions are counted (absolute), which every fixture's expected position checks.",
                "R36": "names differing only by case are different names; the valid fixture keeps both.",
                "N02": "it is a notice (a byte order mark stripped with `--bom strip`).",
                "N03": "it reports a resource that cannot be keyed in the flat output.",
            }.get(rule, "see the tests."))
        near = smallest(valid, "Corpus/valid", rule)
        if near:
            out += ["", f"Passes: [`Corpus/valid/{near}`](../Corpus/valid/{near})"]
        out.append("")
text = "\n".join(out).rstrip("\n") + "\n"
path = os.path.join(root, "docs/rules.md")
if "--check" in sys.argv:
    current = open(path).read() if os.path.exists(path) else ""
    if current != text:
        print("docs/rules.md is not current: run Scripts/rules-doc.py", file=sys.stderr)
        sys.exit(1)
else:
    open(path, "w").write(text)
