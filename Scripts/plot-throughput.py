#!/usr/bin/env python3
"""Throughput by document size, from `jsonapi bench --format json`, as a hand-written SVG.

    Scripts/plot-throughput.py [RESULTS.json] [OUT.svg] [--markdown]

Defaults: Benchmarks/throughput.json -> Benchmarks/throughput.svg. One line per pass (MB/s,
log scale) over the inputs' sizes (log scale); the floor (bare yajl) is drawn thicker. With
--markdown, also prints the README table (MB/s and ratio to bare yajl per size, peak memory)
to standard output. Standard library only.
"""
import json
import math
import sys
from html import escape

# Colours that stay apart in print and for common colour-vision deficiencies (Okabe-Ito and
# Tol's muted set).
COLOURS = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7",
           "#882255", "#44AA99", "#999933", "#AA4499", "#6699CC"]


def load(path):
    with open(path) as f:
        doc = json.load(f)
    inputs = sorted(doc["inputs"], key=lambda i: i["bytes"])
    passes = []
    for i in inputs:
        for p in i["passes"]:
            if p["pass"] not in [q["pass"] for q in passes]:
                passes.append({"pass": p["pass"], "title": p["title"]})
    return doc, inputs, passes


def row(inp, name):
    return next((p for p in inp["passes"] if p["pass"] == name), None)


def nice_ticks(lo, hi):
    ticks = []
    decade = 10 ** math.floor(math.log10(lo))
    while decade <= hi * 10:
        for m in (1, 2, 5):
            v = m * decade
            if lo <= v <= hi:
                ticks.append(v)
        decade *= 10
    return ticks


def nice(v, down):
    """The nearest 1, 2 or 5 times a power of ten below (or above) v."""
    steps = [m * 10 ** e for e in range(-3, 8) for m in (1, 2, 5)]
    return max(s for s in steps if s <= v) if down else min(s for s in steps if s >= v)


def size_label(nbytes):
    mb = nbytes / 1e6
    return f"{mb:.0f} MB" if mb >= 10 and abs(mb - round(mb)) < 0.05 else f"{mb:.1f} MB"


def svg(doc, inputs, passes):
    width, height = 920, 520
    left, right, top, bottom = 70, 300, 56, 70
    pw, ph = width - left - right, height - top - bottom

    values = [p["megabytesPerSecond"] for i in inputs for p in i["passes"] if p.get("megabytesPerSecond")]
    ylo = nice(min(values) * 0.9, down=True)
    yhi = nice(max(values) * 1.1, down=False)
    xs = [i["bytes"] for i in inputs]
    xlo, xhi = min(xs) / 1.6, max(xs) * 1.6

    def x(v):
        return left + (math.log(v) - math.log(xlo)) / (math.log(xhi) - math.log(xlo)) * pw

    def y(v):
        return top + ph - (math.log(v) - math.log(ylo)) / (math.log(yhi) - math.log(ylo)) * ph

    m = doc["machine"]
    load = ("; load average " + " → ".join(f"{v:.1f}" for v in m["loadAverage"])) if m.get("loadAverage") else ""
    l2 = f', L2 {m["level2CacheBytes"] >> 10} KiB a core' if m.get("level2CacheBytes") else ""
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="{left}" y="22" font-size="15" font-weight="bold">Throughput by document size '
           f'(jsonapi bench, median of {doc["runs"] * doc["rounds"]} runs)</text>',
           f'<text x="{left}" y="40" fill="#555">{escape(m["cpu"])}, {m["logicalCores"]} cores{l2}, '
           f'{m["memoryBytes"] >> 30} GiB{load}; each pass in its own process, same bytes, 1 MiB chunks</text>']
    # Grid and axes.
    for t in nice_ticks(ylo, yhi):
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{left - 8}" y="{y(t) + 4:.1f}" text-anchor="end" fill="#333">{t:g}</text>')
    for v in xs:
        out.append(f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{top}" y2="{top + ph}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{x(v):.1f}" y="{top + ph + 18}" text-anchor="middle" fill="#333">{size_label(v)}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 24}" text-anchor="middle">document size (generated, log scale)</text>')
    out.append(f'<text transform="translate(18 {top + ph / 2}) rotate(-90)" text-anchor="middle">MB/s (10^6 bytes, log scale)</text>')

    # One line per pass; labels at the right, nudged apart.
    labels = []
    for k, p in enumerate(passes):
        colour = COLOURS[k % len(COLOURS)]
        points = [(x(i["bytes"]), y(r["megabytesPerSecond"])) for i in inputs
                  if (r := row(i, p["pass"])) and r.get("megabytesPerSecond")]
        if not points:
            continue
        floor = p["pass"] == "yajl"
        dash = ' stroke-dasharray="5 4"' if p["pass"].startswith("json") else ""
        path = " ".join(f"{'M' if j == 0 else 'L'}{px:.1f},{py:.1f}" for j, (px, py) in enumerate(points))
        out.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="{3.5 if floor else 2}"{dash}/>')
        for px, py in points:
            out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}"/>')
        last = row(inputs[-1], p["pass"]) or {}
        ratio = last.get("throughputRatio")
        text = p["title"] + (f" ({ratio:.2f}×)" if ratio is not None else "")
        labels.append([points[-1][1], text, colour])
    labels.sort()
    for j in range(1, len(labels)):
        labels[j][0] = max(labels[j][0], labels[j - 1][0] + 14)
    for ly, text, colour in labels:
        out.append(f'<text x="{left + pw + 10}" y="{ly + 4:.1f}" fill="{colour}">{escape(text)}</text>')
    out.append(f'<text x="{left + pw + 10}" y="{top + ph + 18}" fill="#555">(ratios: × bare yajl at {size_label(xs[-1])})</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def markdown(doc, inputs, passes):
    head = "| pass | " + " | ".join(f"{size_label(i['bytes'])}: MB/s (× yajl)" for i in inputs) + \
        f" | peak RSS at {size_label(inputs[-1]['bytes'])} (above input) |"
    lines = [head, "|---|" + "---:|" * (len(inputs) + 1)]
    for p in passes:
        cells = []
        for i in inputs:
            r = row(i, p["pass"]) or {}
            if r.get("megabytesPerSecond") is None:
                cells.append("failed" if r.get("error") else "–")
            else:
                cells.append(f"{r['megabytesPerSecond']:.0f} ({r['throughputRatio']:.2f})")
        r = row(inputs[-1], p["pass"]) or {}
        mem = (f"{r['peakResidentBytes'] / 2**20:.0f} MiB ({r['aboveInputBytes'] / 2**20:.0f} MiB)"
               if r.get("peakResidentBytes") else "–")
        lines.append(f"| {p['title']} | " + " | ".join(cells) + f" | {mem} |")
    return "\n".join(lines)


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    source = args[0] if args else "Benchmarks/throughput.json"
    target = args[1] if len(args) > 1 else "Benchmarks/throughput.svg"
    doc, inputs, passes = load(source)
    with open(target, "w") as f:
        f.write(svg(doc, inputs, passes))
    print(f"wrote {target}", file=sys.stderr)
    if "--markdown" in argv:
        print(markdown(doc, inputs, passes))


if __name__ == "__main__":
    main(sys.argv[1:])
