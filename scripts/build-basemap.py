#!/usr/bin/env python3
"""Builds the web map's offline basemap: Natural Earth 1:110m country outlines (public domain).

The data comes from PyPI's geopandas 0.14.4 wheel, which carries `naturalearth_lowres`. Only the
wheel is downloaded (`pip download --no-deps`); the shapefile is read straight out of it with the
small reader below, so none of geopandas' heavy dependencies are needed.

Output: Sources/OnTheMapApp/Web/Map/Assets/basemap.json, one SVG path in an equirectangular
projection (x = (lon + 180) * 10, y = (90 - lat) * 10, a 3600 x 1800 box), simplified with
Douglas-Peucker and written with relative integer moves to stay small.

Usage: scripts/build-basemap.py [--wheel PATH] [--tolerance DEGREES] [--out PATH]
"""

import argparse
import io
import json
import os
import struct
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from basemap_common import download_wheel, ring_area, simplify  # noqa: E402

WHEEL = "geopandas==0.14.4"
MEMBER = "geopandas/datasets/naturalearth_lowres/naturalearth_lowres.shp"
SCALE = 10  # units per degree
MIN_RING_AREA = 0.6  # square degrees; smaller islands are dropped




def read_polygons(shp_bytes):
    """Yields each polygon record's rings as lists of (lon, lat). Shape types 5 (Polygon) only."""
    stream = io.BytesIO(shp_bytes)
    header = stream.read(100)
    file_length = struct.unpack(">i", header[24:28])[0] * 2
    shape_type = struct.unpack("<i", header[32:36])[0]
    if shape_type != 5:
        raise SystemExit("expected a polygon shapefile, found shape type %d" % shape_type)
    while stream.tell() < file_length:
        record_header = stream.read(8)
        if len(record_header) < 8:
            break
        content_length = struct.unpack(">i", record_header[4:8])[0] * 2
        content = stream.read(content_length)
        kind = struct.unpack("<i", content[0:4])[0]
        if kind == 0:
            continue
        num_parts, num_points = struct.unpack("<ii", content[36:44])
        parts = list(struct.unpack("<%di" % num_parts, content[44 : 44 + 4 * num_parts]))
        offset = 44 + 4 * num_parts
        coords = struct.unpack("<%dd" % (2 * num_points), content[offset : offset + 16 * num_points])
        points = [(coords[2 * i], coords[2 * i + 1]) for i in range(num_points)]
        parts.append(num_points)
        yield [points[parts[i] : parts[i + 1]] for i in range(num_parts)]






def ring_path(ring):
    projected = []
    for lon, lat in ring:
        point = (round((lon + 180) * SCALE), round((90 - lat) * SCALE))
        if not projected or projected[-1] != point:
            projected.append(point)
    if len(projected) > 1 and projected[0] == projected[-1]:
        projected.pop()
    if len(projected) < 3:
        return ""
    x0, y0 = projected[0]
    out = ["M%d %d" % (x0, y0), "l"]
    previous = (x0, y0)
    moves = []
    for x, y in projected[1:]:
        moves.append("%d %d" % (x - previous[0], y - previous[1]))
        previous = (x, y)
    out.append(" ".join(moves))
    out.append("z")
    # "-" separates numbers on its own: drop the space before it.
    return "".join(out).replace(" -", "-")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", help="a geopandas 0.14.4 wheel already downloaded")
    parser.add_argument("--tolerance", type=float, default=0.1, help="simplification, in degrees")
    parser.add_argument(
        "--out", default=os.path.join(root, "Sources/OnTheMapApp/Web/Map/Assets/basemap.json")
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        wheel = args.wheel or download_wheel(WHEEL, "geopandas-0.14.4", folder)
        with zipfile.ZipFile(wheel) as archive:
            shp = archive.read(MEMBER)

    paths = []
    rings = 0
    for polygon in read_polygons(shp):
        for ring in polygon:
            if ring_area(ring) < MIN_RING_AREA:
                continue
            path = ring_path(simplify(ring, args.tolerance))
            if path:
                paths.append(path)
                rings += 1
    document = {
        "source": "Natural Earth 1:110m Admin 0 countries (public domain), via geopandas 0.14.4 "
        "naturalearth_lowres",
        "projection": "equirectangular; x = (lon + 180) * %d, y = (90 - lat) * %d" % (SCALE, SCALE),
        "width": 360 * SCALE,
        "height": 180 * SCALE,
        "path": "".join(paths),
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(document, handle, separators=(",", ":"))
        handle.write("\n")
    print("wrote %s: %d rings, %d bytes" % (args.out, rings, os.path.getsize(args.out)))


if __name__ == "__main__":
    main()
