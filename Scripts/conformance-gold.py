#!/usr/bin/env python3
"""Writes Corpus/conformance/expected.json: for each JSONTestSuite parsing case, what an
independent reference decoder (Python's json, numbers kept as their text, duplicate names
and lone surrogates noted) makes of it. The conformance test compares our parser with it.

Usage: Scripts/conformance-gold.py [SUITE_DIR]   (default ../shared/JSONTestSuite/test_parsing)
"""
import json, os, sys
sys.setrecursionlimit(5000)

suite = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "shared", "JSONTestSuite", "test_parsing")

class Num(str):
    pass

class Obj(list):
    pass

def esc(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"': out.append('\\"')
        elif ch == '\\': out.append('\\\\')
        elif ch == '\b': out.append('\\b')
        elif ch == '\f': out.append('\\f')
        elif ch == '\n': out.append('\\n')
        elif ch == '\r': out.append('\\r')
        elif ch == '\t': out.append('\\t')
        elif o < 0x20: out.append('\\u%04x' % o)
        else: out.append(ch)
    out.append('"')
    return ''.join(out)

class Dup(Exception):
    pass

seen_duplicates = [False]

def pairs(ps):
    names = [k for k, _ in ps]
    if len(set(names)) != len(names):
        seen_duplicates[0] = True
    return Obj(ps)  # keep order (and repeated names) as a list of pairs

def canon(v):
    if v is None: return "null"
    if v is True: return "true"
    if v is False: return "false"
    if isinstance(v, Num): return str(v)
    if isinstance(v, str): return esc(v)
    if isinstance(v, Obj):
        return "{" + ",".join(esc(k) + ":" + canon(x) for k, x in v) + "}"
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    raise TypeError(type(v))

def bad_constant(c):
    raise ValueError("constant " + c)

def main():
  result = {}
  for name in sorted(os.listdir(suite)):
      if not name.endswith(".json"):
          continue
      data = open(os.path.join(suite, name), "rb").read()
      entry = {}
      seen_duplicates[0] = False
      try:
          text = data.decode("utf-8", errors="strict")
          if text.startswith("\ufeff"):
              raise ValueError("bom")
          v = json.loads(text, parse_float=Num, parse_int=Num, parse_constant=bad_constant, object_pairs_hook=pairs)
          c = canon(v)
          c.encode("utf-8")  # lone surrogates cannot be encoded: not exact data
          entry = {"accepted": True, "value": c}
          if seen_duplicates[0]:
              entry["duplicateNames"] = True
      except (ValueError, UnicodeError) as e:
          entry = {"accepted": False, "why": str(e)[:80]}
      except RecursionError:
          entry = {"accepted": False, "why": "too deep"}
      result[name] = entry

  out = os.path.join(os.path.dirname(__file__), "..", "Corpus", "conformance", "expected.json")
  with open(out, "w") as f:
      json.dump(result, f, indent=1, sort_keys=True, ensure_ascii=False)
      f.write("\n")
  print(f"{len(result)} cases -> {out}")


if __name__ == "__main__":
    import threading
    threading.stack_size(512 * 1024 * 1024)  # deep nesting cases recurse in json.loads
    t = threading.Thread(target=main)
    t.start()
    t.join()
