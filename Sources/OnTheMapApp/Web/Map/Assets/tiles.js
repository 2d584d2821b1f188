// The class map's XYZ tile layer (web.tiles): the tile service's images, in Web Mercator with the
// standard XYZ numbering (zoom 0-19), for the view only. app.js creates it when the page names a
// tile URL, draws everything else with its projection while it works, and goes back to the offline
// map when it says the tiles cannot be had: an image's error event before any loaded, a few in a
// row failing, or none loaded within a few seconds. The URL was checked by the bot (one origin,
// which the page's Content-Security-Policy allows for images; {z}, {x}, {y} once each).
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  var SIZE = 3600; // the Mercator world's square in map units (as wide as the offline map)
  var MAX_LAT = 85.0511287798066; // where the square ends
  var TILE_PX = 256, MAX_Z = 19;
  var FIRST_LOAD_MS = 6000; // no tile within this: the service is out of reach
  var FAILURES_IN_A_ROW = 3; // after tiles worked, this many errors with no load between: gone
  var KEEP_OTHER_ZOOM = 64; // tiles of the zoom before, kept under the new ones until they load

  var mercator = {
    name: 'mercator', W: SIZE, H: SIZE,
    project: function (lat, lon) {
      var phi = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI / 180;
      return { x: (lon + 180) / 360 * SIZE, y: (1 - Math.log(Math.tan(Math.PI / 4 + phi / 2)) / Math.PI) / 2 * SIZE };
    },
    unproject: function (x, y) {
      return { lat: Math.atan(Math.sinh(Math.PI * (1 - 2 * y / SIZE))) * 180 / Math.PI, lon: x / SIZE * 360 - 180 };
    }
  };

  // The XYZ zoom whose tiles are closest to their own size at view scale k.
  function zoomFor(k) {
    return Math.max(0, Math.min(MAX_Z, Math.round(Math.log(SIZE * k / TILE_PX) / Math.LN2)));
  }

  function tileURL(template, z, x, y) {
    return template.split('{z}').join(String(z)).split('{x}').join(String(x)).split('{y}').join(String(y));
  }

  // options: layer (an SVG group), template, onFail(reason) called once when tiles cannot be had.
  function create(options) {
    var layer = options.layer;
    var shown = {}; // "z/x/y" -> { node, z, x, y, loaded }
    var loaded = 0, failuresInRow = 0, failed = false, firstTimer = null;
    var last = null; // the latest view and size, to place a tile as it arrives

    function fail(reason) {
      if (failed) return;
      failed = true;
      clearTimeout(firstTimer);
      Object.keys(shown).forEach(function (key) { layer.removeChild(shown[key].node); });
      shown = {};
      layer.setAttribute('data-failed', reason);
      options.onFail(reason);
    }

    function add(z, x, y) {
      var key = z + '/' + x + '/' + y;
      var node = document.createElementNS(SVG, 'image');
      var tile = shown[key] = { node: node, z: z, x: x, y: y, loaded: false };
      node.setAttribute('data-tile', key);
      node.setAttribute('preserveAspectRatio', 'none');
      node.addEventListener('load', function () {
        if (failed) return;
        loaded++;
        failuresInRow = 0;
        clearTimeout(firstTimer);
        tile.loaded = true;
        node.setAttribute('data-loaded', 'true');
        layer.setAttribute('data-loaded', String(loaded));
        if (last) draw(last.view, last.size);
      });
      node.addEventListener('error', function () {
        if (failed) return;
        failuresInRow++;
        if (!loaded || failuresInRow >= FAILURES_IN_A_ROW) fail('error');
      });
      if (!loaded && firstTimer === null) {
        firstTimer = setTimeout(function () { if (!loaded) fail('timeout'); }, FIRST_LOAD_MS);
      }
      layer.appendChild(node);
      node.setAttribute('href', tileURL(options.template, z, x, y));
      return tile;
    }

    // Each tile at its place on the screen, rounded to whole pixels with one pixel to spare, so no
    // seam shows between neighbours.
    function place(tile, view) {
      var span = SIZE * view.k / Math.pow(2, tile.z);
      var left = Math.floor(view.tx + tile.x * span), top = Math.floor(view.ty + tile.y * span);
      tile.node.setAttribute('x', left);
      tile.node.setAttribute('y', top);
      tile.node.setAttribute('width', Math.ceil(view.tx + (tile.x + 1) * span) - left + 1);
      tile.node.setAttribute('height', Math.ceil(view.ty + (tile.y + 1) * span) - top + 1);
    }

    function draw(view, s) {
      last = { view: view, size: s };
      if (failed) return;
      var z = zoomFor(view.k), n = Math.pow(2, z), span = SIZE * view.k / n;
      var x0 = Math.max(0, Math.floor(-view.tx / span)), x1 = Math.min(n - 1, Math.floor((s.w - view.tx) / span));
      var y0 = Math.max(0, Math.floor(-view.ty / span)), y1 = Math.min(n - 1, Math.floor((s.h - view.ty) / span));
      var wanted = {}, waiting = 0;
      for (var y = y0; y <= y1; y++) {
        for (var x = x0; x <= x1; x++) {
          var key = z + '/' + x + '/' + y;
          wanted[key] = true;
          var tile = shown[key] || add(z, x, y);
          if (!tile.loaded) waiting++;
          place(tile, view);
        }
      }
      // Tiles of another zoom stay under the new ones until those have loaded.
      var others = Object.keys(shown).filter(function (key) { return !wanted[key]; });
      others.forEach(function (key, index) {
        var tile = shown[key];
        if (waiting && tile.z !== z && tile.loaded && index < KEEP_OTHER_ZOOM) { place(tile, view); return; }
        layer.removeChild(tile.node);
        delete shown[key];
      });
      layer.setAttribute('data-zoom', String(z));
    }

    // The largest view scale: the tiles of zoom MAX_Z at their own size.
    function maxScale() { return TILE_PX * Math.pow(2, MAX_Z) / SIZE; }

    return { draw: draw, projection: mercator, maxScale: maxScale, zoomFor: zoomFor };
  }

  window.OnTheMapTiles = { create: create, mercator: mercator };
})();
