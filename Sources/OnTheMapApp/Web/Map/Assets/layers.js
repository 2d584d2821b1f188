// The class map's layers at city zoom: the names of the largest cities in view, from the bot's
// offline gazetteer (map/places.json), and finer coastlines and borders (GSHHG intermediate, in
// 10° cells: map/detail/<column>-<row>.json) over the 1:110m world. app.js creates them and calls
// draw(view, size, projection) on every redraw: the names are placed in the map's projection (the
// offline map's or the tiles' Web Mercator); the outlines belong to the offline map only. Names are only ever put in the page with textContent.
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  var UNIT = 10; // map units per degree of the offline map's equirectangular box
  // Labels appear once a degree spans this many pixels: about one large country in view.
  var LABEL_MIN_PX_PER_DEGREE = 24;
  var LABEL_LIMIT = 100; // asked of the server for one box (its most)
  var LABEL_AREA_PX = 14000; // at most one label per this many square pixels of map
  var FETCH_DELAY_MS = 120; // a wheel or a drag settles before the next box is asked for
  // The finer outlines replace the world's once a degree spans this many pixels.
  var DETAIL_MIN_PX_PER_DEGREE = 40;
  var CELL = 10, CELL_UNITS = 1000; // a detail cell: 10 degrees, 1000 units of its file
  var DETAIL_KEEP = 80; // cells kept drawn; the furthest from the view go first

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVG, name);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    if (parent) parent.appendChild(node);
    return node;
  }

  // The view's box in degrees, widened to a grid of power-of-two degrees so that a small pan asks
  // the same URL again (answered from the browser's cache).
  function labelURL(view, s, proj) {
    var topLeft = proj.unproject(-view.tx / view.k, -view.ty / view.k);
    var bottomRight = proj.unproject((s.w - view.tx) / view.k, (s.h - view.ty) / view.k);
    var west = Math.max(-180, topLeft.lon), east = Math.min(180, bottomRight.lon);
    var north = Math.min(90, topLeft.lat), south = Math.max(-90, bottomRight.lat);
    if (!(east > west && north > south)) return null;
    var step = Math.pow(2, Math.ceil(Math.log(Math.max(east - west, north - south) / 4) / Math.LN2));
    step = Math.max(0.125, Math.min(64, step));
    function down(v) { return Math.floor(v / step) * step; }
    function up(v) { return Math.ceil(v / step) * step; }
    var box = [Math.max(-180, down(west)), Math.max(-90, down(south)), Math.min(180, up(east)), Math.min(90, up(north))];
    return 'map/places.json?bbox=' + box.join(',') + '&limit=' + LABEL_LIMIT;
  }

  // ---- finer outlines ----
  function ringPath(a) { return 'M' + a[0] + ' ' + a[1] + 'l' + a.slice(2).join(' ') + 'z'; }
  function linePath(a) { return 'M' + a[0] + ' ' + a[1] + 'l' + a.slice(2).join(' '); }

  // A clipped ring's coastline: its segments, except those along the cell's edge (where the ring
  // was cut, not where land meets sea).
  function coastPath(a) {
    var out = [], x = a[0], y = a[1], n = a.length / 2, pen = false;
    for (var i = 1; i <= n; i++) {
      var nx = i < n ? x + a[2 * i] : a[0], ny = i < n ? y + a[2 * i + 1] : a[1];
      var edge = (x === nx && (x === 0 || x === CELL_UNITS)) || (y === ny && (y === 0 || y === CELL_UNITS));
      if (edge) pen = false;
      else {
        if (!pen) { out.push('M' + x + ' ' + y); pen = true; }
        out.push('L' + nx + ' ' + ny);
      }
      x = nx; y = ny;
    }
    return out.join('');
  }

  function drawCell(parent, name, column, row, body) {
    var g = el('g', { 'class': 'cell', 'data-cell': name,
      transform: 'translate(' + column * CELL * UNIT + ' ' + row * CELL * UNIT + ') scale(' + (CELL * UNIT / CELL_UNITS) + ')' }, parent);
    el('rect', { 'class': 'cell-sea', width: CELL_UNITS, height: CELL_UNITS }, g);
    var land = Array.isArray(body.land) ? body.land.filter(Array.isArray) : [];
    var borders = Array.isArray(body.borders) ? body.borders.filter(Array.isArray) : [];
    if (land.length) {
      el('path', { 'class': 'cell-land', d: land.map(ringPath).join('') }, g);
      el('path', { 'class': 'cell-coast', d: land.map(coastPath).join('') }, g);
    }
    if (borders.length) el('path', { 'class': 'cell-border', d: borders.map(linePath).join('') }, g);
    return g;
  }

  function createDetail(layer) {
    var cells = {}; // name -> { g, column, row } once drawn, 'loading' while asked for
    var timer = null;

    function load(name, column, row) {
      cells[name] = 'loading';
      fetch('map/detail/' + name).then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      }).then(function (body) {
        cells[name] = { g: drawCell(layer, name, column, row, body), column: column, row: row };
        layer.setAttribute('data-cells', String(layer.childNodes.length));
      }).catch(function () { delete cells[name]; });
    }

    // Keeps at most DETAIL_KEEP cells, letting go of those furthest from the view's centre.
    function trim(cx, cy) {
      var drawn = Object.keys(cells).filter(function (k) { return cells[k] !== 'loading'; });
      if (drawn.length <= DETAIL_KEEP) return;
      function far(k) { var c = cells[k]; return Math.abs(c.column - cx) + Math.abs(c.row - cy); }
      drawn.sort(function (a, b) { return far(b) - far(a); });
      drawn.slice(0, drawn.length - DETAIL_KEEP).forEach(function (k) { layer.removeChild(cells[k].g); delete cells[k]; });
    }

    return function draw(view, s, proj) {
      if (proj.name !== 'plate' || view.k * UNIT < DETAIL_MIN_PX_PER_DEGREE) { layer.setAttribute('display', 'none'); return; }
      layer.removeAttribute('display');
      var span = CELL * UNIT * view.k; // a cell's size on the screen
      var c0 = Math.max(0, Math.floor(-view.tx / span)), c1 = Math.min(35, Math.floor((s.w - view.tx) / span));
      var r0 = Math.max(0, Math.floor(-view.ty / span)), r1 = Math.min(17, Math.floor((s.h - view.ty) / span));
      var missing = [];
      for (var row = r0; row <= r1; row++) {
        for (var column = c0; column <= c1; column++) {
          if (!cells[column + '-' + row + '.json']) missing.push([column, row]);
        }
      }
      trim((c0 + c1) / 2, (r0 + r1) / 2);
      clearTimeout(timer);
      if (missing.length) {
        timer = setTimeout(function () {
          missing.forEach(function (m) {
            var name = m[0] + '-' + m[1] + '.json';
            if (!cells[name]) load(name, m[0], m[1]);
          });
        }, FETCH_DELAY_MS);
      }
    };
  }

  function create(options) {
    var drawDetail = createDetail(options.detail);
    var layer = options.labels;
    var answers = {}; // url -> places, or 'loading'
    var wanted = null, shown = [], timer = null;
    var last = null; // { view, size } of the latest draw

    function request(url) {
      if (answers[url]) return;
      answers[url] = 'loading';
      fetch(url).then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      }).then(function (body) {
        answers[url] = Array.isArray(body.places) ? body.places : [];
        if (url === wanted && last) draw(last.view, last.size, last.proj);
      }).catch(function () { delete answers[url]; });
    }

    // Most populous first; a name that would overlap one already placed is left out, so a
    // closer zoom, with the same cities further apart, shows more of them.
    function place(places, view, s, proj) {
      while (layer.firstChild) layer.removeChild(layer.firstChild);
      var boxes = [], most = Math.max(4, Math.round(s.w * s.h / LABEL_AREA_PX));
      for (var i = 0; i < places.length && boxes.length < most; i++) {
        var p = places[i];
        if (typeof p.name !== 'string' || !Number.isFinite(p.lat) || !Number.isFinite(p.lon)) continue;
        var m = proj.project(p.lat, p.lon), x = m.x * view.k + view.tx, y = m.y * view.k + view.ty;
        if (x < 0 || y < 0 || x > s.w || y > s.h) continue;
        var box = { l: x - 4, t: y - 10, r: x + 10 + p.name.length * 7, b: y + 10 };
        var overlaps = boxes.some(function (o) { return box.l < o.r && box.r > o.l && box.t < o.b && box.b > o.t; });
        if (overlaps) continue;
        boxes.push(box);
        var g = el('g', { 'class': 'place', transform: 'translate(' + x + ' ' + y + ')' }, layer);
        el('circle', { r: 2.5 }, g);
        el('text', { x: 5, y: 4 }, g).textContent = p.name;
      }
      layer.setAttribute('data-count', String(boxes.length));
    }

    function draw(view, s, proj) {
      last = { view: view, size: s, proj: proj };
      drawDetail(view, s, proj);
      // Pixels a degree of longitude spans.
      if (view.k * proj.W / 360 < LABEL_MIN_PX_PER_DEGREE) {
        wanted = null;
        shown = [];
        place([], view, s, proj);
        return;
      }
      var url = labelURL(view, s, proj);
      if (url !== wanted) {
        wanted = url;
        clearTimeout(timer);
        if (url && !answers[url]) timer = setTimeout(function () { if (wanted === url) request(url); }, FETCH_DELAY_MS);
      }
      // Until the new box's answer comes, the last names stay where they are.
      if (url && Array.isArray(answers[url])) shown = answers[url];
      place(shown, view, s, proj);
    }

    return { draw: draw };
  }

  window.OnTheMapLayers = { create: create };
})();
