"""What the two basemap builders share: fetching one wheel from PyPI, and plane geometry on
(x, y) point lists (a ring's area, Douglas-Peucker simplification)."""

import os
import subprocess
import sys


def download_wheel(requirement, file_prefix, folder):
    """Downloads `requirement` ("name==version", no dependencies) into `folder` and returns the
    wheel's path; `file_prefix` is how its file name starts ("name-version")."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", requirement, "--no-deps", "-q", "-d", folder],
        check=True,
    )
    for name in os.listdir(folder):
        if name.startswith(file_prefix) and name.endswith(".whl"):
            return os.path.join(folder, name)
    raise SystemExit("pip did not leave a %s wheel in %s" % (requirement, folder))


def ring_area(ring):
    """The area a closed ring encloses (shoelace formula), whatever its direction."""
    total = 0.0
    for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1]):
        total += x1 * y2 - x2 * y1
    return abs(total) / 2


def simplify(points, tolerance):
    """Douglas-Peucker, iterative, keeping the first and last point."""
    if len(points) < 3:
        return points
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    limit = tolerance * tolerance
    while stack:
        start, end = stack.pop()
        (ax, ay), (bx, by) = points[start], points[end]
        dx, dy = bx - ax, by - ay
        length_sq = dx * dx + dy * dy
        best, best_index = -1.0, -1
        for i in range(start + 1, end):
            px, py = points[i]
            if length_sq == 0:
                dist = (px - ax) ** 2 + (py - ay) ** 2
            else:
                t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length_sq))
                dist = (px - ax - t * dx) ** 2 + (py - ay - t * dy) ** 2
            if dist > best:
                best, best_index = dist, i
        if best_index >= 0 and best > limit:
            keep[best_index] = True
            stack.append((start, best_index))
            stack.append((best_index, end))
    return [p for p, k in zip(points, keep) if k]
