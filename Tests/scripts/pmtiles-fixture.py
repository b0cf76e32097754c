#!/usr/bin/env python3
"""PMTiles fixtures for tilecut's tests, made by the Python pmtiles package (an
independent implementation of the spec), and a loopback HTTP server that honours
Range and counts what it serves.

  pmtiles-fixture.py write OUTDIR ARCHIVE [--size 256] [--floor 1] [--leaf N] [--run Z]
      writes the tiles OUTDIR/{size}/L{floor}_{z}_{x}_{y}.png of a tilecut directory
      store into ARCHIVE with pmtiles.writer.Writer; --leaf N makes the writer put N
      entries in each leaf directory (its own build_roots_leaves), --run Z adds a run
      of 300 equal tiles at zoom Z. Prints JSON: [[z, x, y, source file], ...].
  pmtiles-fixture.py serve DIR [--ignore-range]   (/redirect/F answers 302 to /F)
      serves DIR on 127.0.0.1, prints the port, and answers GET /__stats with
      {"requests": n, "bytes": n, "ranges": [...]} for what it served before.
      Hostile answers: /endless/F ignores Range and answers 200 with a body without
      end (1 GiB at most), /gzip/F answers the range asked for with Content-Encoding:
      gzip, 512 KiB on the wire that inflate to 512 MiB; "bytes" counts what the
      client took off the wire, chunk by chunk.
"""
import http.server
import json
import os
import re
import signal
import sys
import zlib

from pmtiles.tile import zxy_to_tileid, TileType, Compression
import pmtiles.writer as pw


def write(outdir, archive, size=256, floor=1, leaf=None, run=None):
    pattern = re.compile(r"^L%d_(\d+)_(\d+)_(\d+)\.png$" % floor)
    tiles = []
    folder = os.path.join(outdir, str(size))
    for name in os.listdir(folder):
        m = pattern.match(name)
        if m:
            z, x, y = map(int, m.groups())
            tiles.append((zxy_to_tileid(z, x, y), z, x, y, os.path.join(folder, name)))
    if run is not None:
        # equal tiles at consecutive tile IDs: the writer stores them as one run
        source = tiles[0][4]
        base = zxy_to_tileid(run, 0, 0)
        from pmtiles.tile import tileid_to_zxy

        for i in range(300):
            z, x, y = tileid_to_zxy(base + 1000 + i)
            tiles.append((base + 1000 + i, z, x, y, source))
    tiles.sort()
    if leaf is not None:
        pw.optimize_directories = lambda entries, target: pw.build_roots_leaves(entries, leaf)
    with open(archive, "wb") as f:
        w = pw.Writer(f)
        for tid, z, x, y, path in tiles:
            with open(path, "rb") as t:
                w.write_tile(tid, t.read())
        w.finalize(
            {
                "tile_type": TileType.PNG,
                "tile_compression": Compression.NONE,
                "min_lon_e7": int(-180.0 * 10000000),
                "min_lat_e7": int(-85.0 * 10000000),
                "max_lon_e7": int(180.0 * 10000000),
                "max_lat_e7": int(85.0 * 10000000),
                "center_zoom": 0,
                "center_lon_e7": 0,
                "center_lat_e7": 0,
            },
            {"name": "office", "attribution": "tilecut tests", "floor": floor, "tileSize": size},
        )
    json.dump([[z, x, y, p] for _, z, x, y, p in tiles], sys.stdout)


class Handler(http.server.BaseHTTPRequestHandler):
    ignore_range = False
    stats = {"requests": 0, "bytes": 0, "ranges": []}

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/__stats":
            body = json.dumps(Handler.stats).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        Handler.stats["requests"] += 1
        # /redirect/F: a 302 to /F, as a CDN or a signed-URL service answers
        if self.path.startswith("/redirect/"):
            Handler.stats["ranges"].append(self.headers.get("Range"))
            self.send_response(302)
            self.send_header("Location", self.path[len("/redirect"):])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path.startswith("/endless/") or self.path.startswith("/gzip/"):
            Handler.stats["ranges"].append(self.headers.get("Range"))
            self.hostile(self.path.startswith("/endless/"))
            return
        path = os.path.join(self.server.root, self.path.lstrip("/"))
        if not os.path.isfile(path):
            self.send_error(404)
            return
        size = os.path.getsize(path)
        header = self.headers.get("Range")
        Handler.stats["ranges"].append(header)
        m = re.match(r"bytes=(\d+)-(\d+)$", header or "")
        with open(path, "rb") as f:
            if Handler.ignore_range or not m:
                self.send_response(200)
                self.send_header("Content-Length", str(size))
                self.end_headers()
                data = f.read()
            else:
                start, end = int(m.group(1)), min(int(m.group(2)), size - 1)
                if start >= size:
                    self.send_response(416)
                    self.send_header("Content-Range", "bytes */%d" % size)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                f.seek(start)
                data = f.read(end - start + 1)
                self.send_response(206)
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
        Handler.stats["bytes"] += len(data)
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass


    bomb = None

    def hostile(self, endless):
        if endless:
            self.send_response(200)
            self.send_header("Content-Length", str(1 << 40))
            self.end_headers()
            chunk, left = b"\0" * 65536, 1 << 30
        else:
            if Handler.bomb is None:
                Handler.bomb = gzip_bomb(512)
            m = re.match(r"bytes=(\d+)-(\d+)$", self.headers.get("Range") or "")
            start, end = (int(m.group(1)), int(m.group(2))) if m else (0, 16383)
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, 1 << 30))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(Handler.bomb)))
            self.end_headers()
            chunk, left = None, len(Handler.bomb)
        sent = 0
        try:
            while sent < left:
                piece = chunk if chunk is not None else Handler.bomb[sent:sent + 65536]
                self.wfile.write(piece)
                sent += len(piece)
                Handler.stats["bytes"] += len(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass


def gzip_bomb(mib):
    """A gzip stream of `mib` MiB of zeros, made in a blink: after a full flush deflate
    starts afresh, so every further MiB compresses to the same bytes, repeated; the
    trailer then counts them all."""
    zeros = b"\0" * (1 << 20)
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = z.compress(zeros) + z.flush(zlib.Z_FULL_FLUSH)
    again = z.compress(zeros) + z.flush(zlib.Z_FULL_FLUSH)
    last = z.flush()[:-8]
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(zeros, crc)
    trailer = crc.to_bytes(4, "little") + ((mib << 20) & 0xFFFFFFFF).to_bytes(4, "little")
    return first + again * (mib - 1) + last + trailer


def serve(root, ignore_range=False):
    # a test runner may start us with SIGTERM blocked: stop when asked
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    Handler.ignore_range = ignore_range
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.root = root
    print(server.server_address[1], flush=True)
    server.serve_forever()


def main(argv):
    def option(name, default=None):
        return int(argv[argv.index(name) + 1]) if name in argv else default

    if argv[1] == "write":
        write(argv[2], argv[3], option("--size", 256), option("--floor", 1), option("--leaf"), option("--run"))
    elif argv[1] == "serve":
        serve(argv[2], "--ignore-range" in argv)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
