"""Exploitability curves as an SVG file, without a plotting library: the
benches' scripts run on a fresh machine with only Python's standard library.

A figure has one or more panels side by side, each plotting exploitability
(log scale) against one key of the points (`seconds`, `iteration`, ...,
log scale); every curve appears in every panel in its own colour.
"""
import math
import os

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def write_svg(path, title, panels, curves):
    """Writes `curves` (a list of (name, colour, points); a point is a dict
    with an `exploitability` and each panel's key) into `path` atomically.
    `panels` is a list of (key, axis label)."""
    pw, height, pad, legend = 480, 440, 60, 190
    width = pw * len(panels) + legend
    ys = [math.log10(p["exploitability"]) for _, _, pts in curves for p in pts
          if p["exploitability"] > 0]
    y0, y1 = min(ys) - 0.05, max(ys) + 0.05
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="14">{title}</text>']
    for k, (key, label) in enumerate(panels):
        left = k * pw + pad
        right = (k + 1) * pw - 20
        usable = [p for _, _, pts in curves for p in pts if p[key] > 0 and p["exploitability"] > 0]
        xs = [math.log10(p[key]) for p in usable]
        x0, x1 = math.floor(min(xs)), math.ceil(max(xs))
        x1 = max(x1, x0 + 1)

        def at(p, left=left, right=right, x0=x0, x1=x1, key=key):
            x = left + (math.log10(p[key]) - x0) / (x1 - x0) * (right - left)
            y = height - pad - (math.log10(p["exploitability"]) - y0) / (y1 - y0) * (height - 2 * pad)
            return x, y

        out.append(f'<line x1="{left}" y1="{height - pad}" x2="{right}" y2="{height - pad}" stroke="black"/>')
        out.append(f'<line x1="{left}" y1="{pad}" x2="{left}" y2="{height - pad}" stroke="black"/>')
        for e in range(x0, x1 + 1):
            x = left + (e - x0) / (x1 - x0) * (right - left)
            out.append(f'<text x="{x:.1f}" y="{height - pad + 16}" text-anchor="middle">{10 ** e:g}</text>')
        for e in range(math.floor(y0), math.ceil(y1) + 1):
            for m in (1, 2, 5):
                v = m * 10 ** e
                if y0 <= math.log10(v) <= y1:
                    y = height - pad - (math.log10(v) - y0) / (y1 - y0) * (height - 2 * pad)
                    out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{v:g}</text>')
        out.append(f'<text x="{(left + right) / 2}" y="{height - 18}" text-anchor="middle">{label}</text>')
        out.append(f'<text x="{left - 44}" y="{height / 2}" transform="rotate(-90 {left - 44} {height / 2})" '
                   'text-anchor="middle">exploitability (log)</text>')
        for name, colour, pts in curves:
            pts = sorted((p for p in pts if p[key] > 0 and p["exploitability"] > 0), key=lambda p: p[key])
            line = " ".join("%.1f,%.1f" % at(p) for p in pts)
            out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
            for p in pts:
                x, y = at(p)
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>')
    for k, (name, colour, _) in enumerate(curves):
        out.append(f'<text x="{pw * len(panels) + 4}" y="{pad + 16 * k}" fill="{colour}">{name}</text>')
    out.append("</svg>")
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(tmp, path)
