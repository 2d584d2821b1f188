// The class map: an SVG world (Natural Earth outlines, equirectangular; or, when the bot names a
// tile service and it answers, its XYZ tiles in Web Mercator) with what the server sends for the
// viewport (api/map/view.json: clusters with counts, single pins once zoomed in, and a count on
// each region or country where students keep their pin at that level), and a table that pages
// through the class (api/map/table.json). Data is only ever put in the page as text (textContent,
// setAttribute), never parsed as HTML; links are made clickable only when they are http(s). Every
// word shown comes from the page's catalogue messages (text.js), in the page's language, and
// numbers, days and times are written that language's way.
//
// Without a pointer, everything is reachable by keyboard: buttons zoom and pan (one press, no
// dragging), the list of what the view shows gives each pin, cluster and place count a "Show on
// map" button, and a live region says what the view shows. The markers themselves are for
// pointers: they stay out of the tab order (the list holds them all).
//
// A service worker (sw.js) keeps the page and its last answers for offline use: an answer it
// gives from its cache says when it was fetched, and the status reads "Offline: 166 pins as of
// 14:02". Signing in or out empties that cache (forgetPins).
(function () {
  'use strict';
  var words = window.OnTheMapText;
  var t = words.t;
  var SVG = 'http://www.w3.org/2000/svg';
  var UNIT = 10; // the offline basemap's box: 10 units per degree
  var CLUSTER_PX = 22, MAX_ZOOM = 96; // the offline map's closest zoom, in world views

  var app = document.getElementById('app');
  var mapBox = document.getElementById('map');
  var svg = document.getElementById('map-svg');
  var world = document.getElementById('world');
  var land = document.getElementById('land');
  var pinLayer = document.getElementById('pins');
  var focusLayer = document.getElementById('focus-layer');
  // Labels of cities and finer outlines at city zoom (layers.js, loaded before this script).
  var layers = window.OnTheMapLayers ? window.OnTheMapLayers.create({
    labels: document.getElementById('labels'), detail: document.getElementById('detail') }) : null;
  var tileCredit = document.getElementById('tile-credit');
  // The tile service's layer (tiles.js), when the bot names one: everything is drawn in its
  // projection until its tiles cannot be had; then in the offline map's.
  var tiles = app.getAttribute('data-tiles-url') && window.OnTheMapTiles ? window.OnTheMapTiles.create({
    layer: document.getElementById('tiles'), template: app.getAttribute('data-tiles-url'),
    onFail: function () { useOfflineMap(); } }) : null;
  var popup = document.getElementById('popup');
  var listToggle = document.getElementById('list-toggle');
  var listPanel = document.getElementById('map-list');
  var listItems = document.getElementById('map-list-items');
  var summary = document.getElementById('map-summary');
  var popupList = document.getElementById('popup-list');
  var popupPager = document.getElementById('popup-pager');
  var tablePager = document.getElementById('table-pager');
  var tableCaption = document.querySelector('#table caption');
  var rows = document.getElementById('rows');
  var tableEmpty = document.getElementById('table-empty');
  var status = document.getElementById('status');
  var signinNote = document.getElementById('signin-note');
  var signoutButton = document.getElementById('signout');
  var signoutEverywhereButton = document.getElementById('signout-everywhere');
  // A class map without the v1 API has no log-out of its own (posting.js): a browser signed in by
  // a link signs out here.
  var ownSignout = app.getAttribute('data-visibility') === 'class' && app.getAttribute('data-api') !== 'on';

  var pins = []; // the pins the server sent one by one for the viewport
  var groups = []; // the server's clusters: { cell, count, latitude, longitude }
  var areas = []; // region- and country-level places: { place, level, count, latitude, longitude }
  var total = 0; // every pin of the class
  var cursor = null;
  var fetched = null; // the viewport and zoom of the last answer: { west, south, east, north, zoom }
  var viewTimer = null;
  var pendingPin = null; // a pin to open once the viewport around it is loaded
  var tableRows = [], tablePage = 0, tablePages = 0, tableLoaded = false;
  var listing = null; // the paged list in the popup: { query, page, pages }
  var SINGLES_ZOOM = 8, MAX_VIEW_ZOOM = 18; // as MapViewIndex.singlesZoom and .zooms
  var view = { k: 1, tx: 0, ty: 0 }; // screen = map * k + t
  var open = null; // { ids: [...], x, y } in map units, the popup shown
  var focus = null;
  var opened = false;

  // ---- projection and view ----
  // A projection maps degrees to map units in a W x H box, and back.
  var plate = {
    name: 'plate', W: 3600, H: 1800,
    project: function (lat, lon) { return { x: (lon + 180) * UNIT, y: (90 - lat) * UNIT }; },
    unproject: function (x, y) { return { lat: 90 - y / UNIT, lon: x / UNIT - 180 }; }
  };
  var proj = tiles ? tiles.projection : plate;
  function project(lat, lon) { return proj.project(lat, lon); }
  function size() { var r = mapBox.getBoundingClientRect(); return { w: r.width || 800, h: r.height || 500 }; }
  function minScale() { var s = size(); return Math.min(s.w / proj.W, s.h / proj.H); }
  function maxScale() { return proj === plate ? minScale() * MAX_ZOOM : Math.max(minScale(), tiles.maxScale()); }

  function clampView() {
    var s = size(), kMin = minScale();
    view.k = Math.max(kMin, Math.min(maxScale(), view.k));
    var mw = proj.W * view.k, mh = proj.H * view.k;
    view.tx = mw <= s.w ? (s.w - mw) / 2 : Math.min(0, Math.max(s.w - mw, view.tx));
    view.ty = mh <= s.h ? (s.h - mh) / 2 : Math.min(0, Math.max(s.h - mh, view.ty));
  }

  function zoomAt(factor, sx, sy) {
    var k = view.k;
    var mx = (sx - view.tx) / k, my = (sy - view.ty) / k;
    view.k = k * factor;
    clampView();
    view.tx = sx - mx * view.k;
    view.ty = sy - my * view.k;
    clampView();
    draw();
  }

  function centerOn(x, y, zoom) {
    var s = size();
    view.k = minScale() * zoom;
    view.tx = s.w / 2 - x * view.k;
    view.ty = s.h / 2 - y * view.k;
    clampView();
    draw();
  }

  function resetView() { view.k = minScale(); view.tx = 0; view.ty = 0; clampView(); draw(); }

  // The tiles cannot be had: the same place, at the same scale, on the offline map, and a word
  // about it where the tiles' credit was.
  function useOfflineMap() {
    if (proj === plate) return;
    var s = size(), before = proj;
    var centre = before.unproject((s.w / 2 - view.tx) / view.k, (s.h / 2 - view.ty) / view.k);
    if (open) {
      var o = before.unproject(open.x, open.y), moved = plate.project(o.lat, o.lon);
      open.x = moved.x;
      open.y = moved.y;
    }
    var k = view.k * before.W / plate.W;
    proj = plate;
    var m = project(centre.lat, centre.lon);
    view.k = k;
    view.tx = s.w / 2 - m.x * k;
    view.ty = s.h / 2 - m.y * k;
    clampView();
    app.setAttribute('data-basemap', 'offline');
    tileCredit.textContent = t('web.page.tiles.offline');
    tileCredit.classList.add('offline');
    draw();
  }

  // ---- drawing ----
  function el(name, attrs, parent) {
    var node = document.createElementNS(SVG, name);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    if (parent) parent.appendChild(node);
    return node;
  }

  // Pins closer than CLUSTER_PX on screen share a marker: each pin goes to the grid cell of its
  // screen position, so grouping costs one pass however many pins there are.
  function clusters() {
    var cells = {}, groups = [];
    for (var i = 0; i < pins.length; i++) {
      var p = pins[i], m = project(p.latitude, p.longitude);
      var g = { pin: p, mx: m.x, my: m.y, sx: m.x * view.k + view.tx, sy: m.y * view.k + view.ty };
      var key = Math.floor(g.sx / CLUSTER_PX) + ':' + Math.floor(g.sy / CLUSTER_PX);
      var group = cells[key];
      if (!group) { group = cells[key] = []; groups.push(group); }
      group.push(g);
    }
    return groups;
  }

  // Every redraw is a User Timing entry "map-draw" (its detail: how many pins), for profiling and
  // for scripts/bench-scale.
  function draw() {
    var started = performance.now();
    if (proj === plate) {
      world.removeAttribute('display');
      world.setAttribute('transform', 'translate(' + view.tx + ' ' + view.ty + ') scale(' + view.k + ')');
    } else {
      world.setAttribute('display', 'none');
      tiles.draw(view, size());
    }
    if (layers) layers.draw(view, size(), proj);
    while (pinLayer.firstChild) pinLayer.removeChild(pinLayer.firstChild);
    // Drawn first, under the clusters and pins of the same spot.
    var shownOnPlaces = 0;
    // A region or country is a count on the place, never a pin on its centre.
    areas.forEach(function (a) {
      var m = project(a.latitude, a.longitude), sx = m.x * view.k + view.tx, sy = m.y * view.k + view.ty;
      var label = t('web.page.area.count', { count: a.count, place: a.place });
      var node = el('g', { 'class': 'area', 'data-count': String(a.count), 'data-place': a.place, 'data-level': a.level, transform: 'translate(' + sx + ' ' + sy + ')' }, pinLayer);
      var width = Math.max(40, label.length * 7 + 14);
      el('rect', { x: -width / 2, y: -11, width: width, height: 22, rx: 11 }, node);
      el('text', {}, node).textContent = label;
      el('title', {}, node).textContent = label;
      var pick = function () { openList('place=' + encodeURIComponent(a.place), 0, m.x, m.y); };
      node.addEventListener('click', function (e) { e.stopPropagation(); pick(); });
      node.addEventListener('pointerdown', function (e) { e.stopPropagation(); });
      shownOnPlaces += a.count;
    });
    clusters().forEach(function (group) {
      var sx = 0, sy = 0, mx = 0, my = 0;
      group.forEach(function (g) { sx += g.sx; sy += g.sy; mx += g.mx; my += g.my; });
      sx /= group.length; sy /= group.length; mx /= group.length; my /= group.length;
      var ids = group.map(function (g) { return g.pin.id; });
      var node;
      if (group.length === 1) {
        var p = group[0].pin;
        node = el('g', { 'class': 'pin', 'data-id': p.id, transform: 'translate(' + sx + ' ' + sy + ')' }, pinLayer);
        el('line', { 'class': 'stem', x1: 0, y1: 0, x2: 0, y2: -10 }, node);
        el('circle', { 'class': 'head', cx: 0, cy: -14, r: 6 }, node);
        el('title', {}, node).textContent = p.name + ' — ' + placeText(p);
        node.addEventListener('pointerenter', function (e) { if (e.pointerType === 'mouse') showPopup(ids, mx, my); });
      } else {
        node = el('g', { 'class': 'cluster', 'data-count': String(group.length), transform: 'translate(' + sx + ' ' + sy + ')' }, pinLayer);
        el('circle', { r: 11 + Math.min(8, group.length) }, node);
        el('text', {}, node).textContent = words.number(group.length);
        el('title', {}, node).textContent = t('web.page.cluster.title', {
          count: group.length, names: listFormat(group.map(function (g) { return g.pin.name; })) });
      }
      if (open && ids.some(function (id) { return open.ids.indexOf(id) >= 0; })) node.classList.add('active');
      node.addEventListener('click', function (e) { e.stopPropagation(); choose(group, ids, mx, my); });
      node.addEventListener('pointerdown', function (e) { e.stopPropagation(); });
    });
    var shown = pins.length + shownOnPlaces;
    groups.forEach(function (c) {
      var m = project(c.latitude, c.longitude), sx = m.x * view.k + view.tx, sy = m.y * view.k + view.ty;
      var node = el('g', { 'class': 'cluster', 'data-count': String(c.count), 'data-cell': c.cell, transform: 'translate(' + sx + ' ' + sy + ')' }, pinLayer);
      el('circle', { r: 11 + Math.min(12, Math.round(Math.log(c.count) / Math.LN2 * 1.5)) }, node);
      el('text', {}, node).textContent = words.number(c.count);
      el('title', {}, node).textContent = t('web.page.cluster.count', { count: c.count });
      if (listing && listing.query === 'cell=' + encodeURIComponent(c.cell)) node.classList.add('active');
      var pick = function () { chooseCell(c, m.x, m.y); };
      node.addEventListener('click', function (e) { e.stopPropagation(); pick(); });
      node.addEventListener('pointerdown', function (e) { e.stopPropagation(); });
      shown += c.count;
    });
    drawFocus();
    placePopup();
    performance.measure('map-draw', { start: started, detail: { pins: shown } });
    scheduleView();
    scheduleDescribe();
  }

  // A server cluster: zoomed in on while the server can still split it; once the pins it holds
  // would come one by one (or the map is as close as it goes), the popup lists their names.
  function chooseCell(c, mx, my) {
    if (currentZoom() < SINGLES_ZOOM && view.k * 4 <= maxScale()) {
      zoomAt(4, mx * view.k + view.tx, my * view.k + view.ty);
      return;
    }
    openList('cell=' + encodeURIComponent(c.cell), 0, mx, my);
  }

  // A tap on a cluster zooms in while its pins can still be told apart; then it lists them all.
  function choose(group, ids, mx, my) {
    if (group.length > 1) {
      var spread = 0;
      group.forEach(function (g) { spread = Math.max(spread, Math.abs(g.mx - mx), Math.abs(g.my - my)); });
      if (spread * view.k * 4 > 4 && view.k < maxScale()) {
        zoomAt(4, mx * view.k + view.tx, my * view.k + view.ty);
        return;
      }
    }
    showPopup(ids, mx, my);
  }

  function drawFocus() {
    while (focusLayer.firstChild) focusLayer.removeChild(focusLayer.firstChild);
    if (!focus) return;
    var m = project(focus.lat, focus.lon);
    var g = el('g', { 'class': 'focus', transform: 'translate(' + (m.x * view.k + view.tx) + ' ' + (m.y * view.k + view.ty) + ')' }, focusLayer);
    el('circle', { r: 16 }, g);
    if (focus.label) el('text', { x: 20, y: 4 }, g).textContent = focus.label;
  }

  // ---- popup ----
  function safeLink(text) {
    try {
      var url = new URL(text);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.host ? url.href : null;
    } catch (e) { return null; }
  }

  function linkNode(p) {
    var href = p.linkOpens ? safeLink(p.link) : null;
    var node;
    if (href) {
      node = document.createElement('a');
      node.href = href;
      node.target = '_blank';
      node.rel = 'noopener noreferrer';
    } else {
      node = document.createElement('span');
      node.className = 'nolink';
      node.title = t('web.page.link.notWeb');
    }
    node.classList.add('link');
    node.textContent = p.link || t('web.page.link.none');
    return node;
  }

  // "Ada, Grace and Linus", the language's way.
  function listFormat(names) {
    try { return new Intl.ListFormat(words.locale, { type: 'conjunction' }).format(names); } catch (e) { return names.join(', '); }
  }

  // ---- local time ----
  // "Tue 21:14" now in a pin's zone (an IANA name, read with the browser's own time zone data),
  // in the page's language, on the 24-hour clock; "several time zones" for a country whose towns
  // keep different times, '' when not known.
  function localTime(zone) {
    if (!zone) return '';
    if (zone === 'several') return t('web.page.localTime.several');
    try {
      return new Intl.DateTimeFormat(words.locale, {
        timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23'
      }).format(new Date()).replace(',', '');
    } catch (e) { return ''; }
  }

  // The text of a local-time element: the time alone in the table, "Local time: …" in a popup.
  function localTimeText(zone, labelled) {
    var time = localTime(zone);
    if (!time) return '';
    return labelled ? t('web.page.localTime', { time: time }) : time;
  }

  // An element that shows the local time of `zone` and keeps it current (see the minute timer);
  // `labelled`: with its label (a popup), else the time alone (the table's column).
  function localTimeNode(tag, zone, labelled) {
    var node = document.createElement(tag);
    node.className = 'local';
    if (zone) {
      node.setAttribute('data-zone', zone);
      node.setAttribute('data-prefix', labelled ? 'label' : '');
      node.textContent = localTimeText(zone, labelled);
    }
    return node;
  }

  function refreshLocalTimes() {
    Array.prototype.forEach.call(document.querySelectorAll('.local[data-zone]'), function (node) {
      node.textContent = localTimeText(node.getAttribute('data-zone'), node.getAttribute('data-prefix') === 'label');
    });
  }

  // "24 Dec" ("24 dic", "12月24日") for a day written "2026-12-24"; '' for anything else.
  function dayText(iso) {
    var day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso || '');
    if (!day) return '';
    try {
      return new Intl.DateTimeFormat(words.locale, { day: 'numeric', month: 'short', timeZone: 'UTC' })
        .format(new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]), 12)));
    } catch (e) { return iso; }
  }

  // "Tokyo until 24 Dec" for a pin on a trip (`until` is the trip's last day, "2026-12-24").
  function placeText(p) {
    var until = dayText(p.until);
    return until ? t('web.page.place.until', { place: p.place, day: until }) : p.place;
  }

  function fillPopup(chosen) {
    while (popupList.firstChild) popupList.removeChild(popupList.firstChild);
    chosen.forEach(function (p) {
      var li = document.createElement('li');
      li.setAttribute('data-id', p.id);
      var name = document.createElement('span');
      name.className = 'name';
      name.textContent = p.name;
      var place = document.createElement('span');
      place.className = 'place';
      place.textContent = placeText(p);
      li.appendChild(name);
      li.appendChild(place);
      if (p.timeZone) li.appendChild(localTimeNode('span', p.timeZone, true));
      li.appendChild(linkNode(p));
      popupList.appendChild(li);
    });
  }

  // The popup takes the focus when the keyboard asked for it (the list's "Show on map"); Escape or
  // Close gives it back to where it was.
  var focusPopup = false, popupOpener = null;
  function takeFocus() {
    if (!focusPopup) return;
    focusPopup = false;
    popup.focus({ preventScroll: true });
  }

  function showPopup(ids, mx, my) {
    var chosen = pins.filter(function (p) { return ids.indexOf(p.id) >= 0; });
    if (!chosen.length) { hidePopup(); return; }
    open = { ids: ids, x: mx, y: my };
    listing = null;
    popupPager.hidden = true;
    fillPopup(chosen);
    popup.hidden = false;
    Array.prototype.forEach.call(pinLayer.children, function (n) {
      var id = n.getAttribute('data-id');
      n.classList.toggle('active', id !== null && ids.indexOf(id) >= 0);
    });
    placePopup();
    takeFocus();
  }

  // The names of a cluster or a place, a page at a time (api/map/names.json).
  function openList(query, page, mx, my) {
    getJSON('api/map/names.json?' + query + '&page=' + page).then(function (body) {
      open = { ids: [], x: mx, y: my };
      listing = { query: query, page: body.page, pages: body.pages };
      fillPopup(body.pins);
      popupPager.hidden = body.pages <= 1;
      document.getElementById('popup-page').textContent = t('web.page.list.page', { page: words.number(body.page + 1), pages: words.number(Math.max(1, body.pages)) });
      document.getElementById('popup-previous').disabled = body.page <= 0;
      document.getElementById('popup-next').disabled = body.page + 1 >= body.pages;
      popup.hidden = false;
      app.setAttribute('data-list', query);
      placePopup();
      takeFocus();
    }).catch(failed);
  }

  function hidePopup() {
    var hadFocus = popup.contains(document.activeElement);
    open = null;
    listing = null;
    app.removeAttribute('data-list');
    popup.hidden = true;
    if (hadFocus) {
      // The list may have been drawn again meanwhile: the same item's button, else its heading.
      var key = popupOpener && popupOpener.getAttribute('data-key');
      var back = popupOpener && document.contains(popupOpener) ? popupOpener
        : key && Array.prototype.filter.call(listItems.querySelectorAll('button'), function (b) { return b.getAttribute('data-key') === key; })[0];
      if (!back && !listPanel.hidden) back = document.getElementById('map-list-heading');
      if (back) back.focus();
    }
    popupOpener = null;
    Array.prototype.forEach.call(pinLayer.children, function (n) { n.classList.remove('active'); });
  }

  function placePopup() {
    if (!open || popup.hidden) return;
    var s = size();
    var x = open.x * view.k + view.tx, y = open.y * view.k + view.ty;
    var pw = popup.offsetWidth || 220, ph = popup.offsetHeight || 80;
    var left = Math.max(4, Math.min(s.w - pw - 4, x - pw / 2));
    var top = y - ph - 26;
    if (top < 4) top = Math.min(s.h - ph - 4, y + 10);
    popup.style.left = left + 'px';
    popup.style.top = Math.max(4, top) + 'px';
  }

  // ---- table ----
  // "just now", "5 minutes ago", "3 days ago" in the page's language; older than 60 days, the date.
  function ago(date) {
    var s = Math.max(0, (Date.now() - date.getTime()) / 1000);
    if (s < 60) return t('web.page.ago.now');
    try {
      if (s < 86400 * 60) {
        var relative = new Intl.RelativeTimeFormat(words.locale, { numeric: 'auto' });
        if (s < 3600) return relative.format(-Math.floor(s / 60), 'minute');
        if (s < 86400) return relative.format(-Math.floor(s / 3600), 'hour');
        return relative.format(-Math.floor(s / 86400), 'day');
      }
      return new Intl.DateTimeFormat(words.locale, { dateStyle: 'medium' }).format(date);
    } catch (e) { return date.toISOString().slice(0, 10); }
  }

  // The table is one page of the class, newest first, as the server pages it.
  function drawTable() {
    while (rows.firstChild) rows.removeChild(rows.firstChild);
    tableRows.forEach(function (p) {
      var tr = document.createElement('tr');
      tr.setAttribute('data-id', p.id);
      var name = document.createElement('td');
      name.className = 'name';
      var show = document.createElement('button');
      show.type = 'button';
      show.className = 'show';
      show.title = t('web.page.table.show');
      show.textContent = p.name;
      show.addEventListener('click', function () { showPin(p, 6); });
      name.appendChild(show);
      var place = document.createElement('td');
      place.className = 'place';
      place.textContent = placeText(p);
      var local = localTimeNode('td', p.timeZone, false);
      var link = document.createElement('td');
      link.className = 'link';
      link.appendChild(linkNode(p));
      var when = document.createElement('td');
      when.className = 'when';
      var time = document.createElement('time');
      var date = new Date(p.updatedAt);
      time.setAttribute('datetime', p.updatedAt);
      try {
        time.title = new Intl.DateTimeFormat(words.locale, { dateStyle: 'full', timeStyle: 'short' }).format(date);
      } catch (e) { time.title = date.toString(); }
      time.textContent = ago(date);
      when.appendChild(time);
      [name, place, local, link, when].forEach(function (c) { tr.appendChild(c); });
      rows.appendChild(tr);
    });
    tableEmpty.hidden = tableRows.length > 0;
    tablePager.hidden = tablePages <= 1;
    document.getElementById('table-page').textContent = t('web.page.list.page', { page: words.number(tablePage + 1), pages: words.number(Math.max(1, tablePages)) });
    document.getElementById('table-previous').disabled = tablePage <= 0;
    document.getElementById('table-next').disabled = tablePage + 1 >= tablePages;
  }

  function loadTable(page) {
    return getJSON('api/map/table.json?page=' + page).then(function (body) {
      tableRows = body.pins;
      tableLoaded = true;
      tablePage = body.page;
      tablePages = body.pages;
      if (body.count > 0) {
        var first = body.page * TABLE_ROWS + 1;
        tableCaption.textContent = t('web.page.table.range', {
          first: words.number(Math.min(first, body.count)), last: words.number(Math.min(body.count, first + tableRows.length - 1)),
          count: words.number(body.count) });
      }
      drawTable();
    });
  }
  var TABLE_ROWS = 100; // rows a page of api/map/table.json holds (WebMap.tableRowsPerPage)

  // ---- tabs and deep links (#tab=table, #pin=<id>) ----
  function selectTab(which) {
    ['map', 'table'].forEach(function (t) {
      document.getElementById('tab-' + t).setAttribute('aria-selected', String(t === which));
      document.getElementById('view-' + t).hidden = t !== which;
    });
    if (which === 'map') { clampView(); draw(); }
    if (which === 'table') loadTable(tablePage).catch(failed);
  }

  // Centres the map on a pin (a table row's, or one on the map) and opens its popup once the
  // viewport around it has come.
  // Close enough that the server sends the pins of an uncrowded spot one by one.
  function showPin(p, zoom) {
    if (!p) return false;
    selectTab('map');
    var m = project(p.latitude, p.longitude);
    pendingPin = p;
    var close = 256 * Math.pow(2, SINGLES_ZOOM) / (proj.W * minScale());
    centerOn(m.x, m.y, Math.min(maxScale() / minScale(), Math.max(zoom, close)));
    openPending();
    return true;
  }

  // The cell of the server's grid (Web Mercator, as MapViewIndex) that holds a point at `zoom`.
  function cellOf(lat, lon, zoom) {
    var n = Math.pow(2, zoom + 2), limit = 85.05112878;
    var phi = Math.max(-limit, Math.min(limit, lat)) * Math.PI / 180;
    var x = (lon + 180) / 360, y = (1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2;
    function index(v) { return Math.max(0, Math.min(n - 1, Math.floor(v * n))); }
    return (zoom + 2) + '-' + index(x) + '-' + index(y);
  }

  // Once the viewport around the pin came: its popup, or, in a crowd the server keeps as a
  // cluster, the list of that cluster's names.
  function openPending() {
    if (!pendingPin || !fetched || !covers(fetched, viewport(false))) return;
    var id = pendingPin.id;
    var p = pins.filter(function (q) { return q.id === id; })[0];
    if (!p) {
      var wanted = pendingPin, cell = cellOf(wanted.latitude, wanted.longitude, fetched.zoom);
      pendingPin = null;
      if (groups.some(function (c) { return c.cell === cell; })) {
        var spot = project(wanted.latitude, wanted.longitude);
        openList('cell=' + encodeURIComponent(cell), 0, spot.x, spot.y);
      }
      return;
    }
    pendingPin = null;
    var m = project(p.latitude, p.longitude);
    // Pins sharing the spot stay listed together.
    var same = clusters().filter(function (g) { return g.some(function (x) { return x.pin.id === id; }); })[0];
    showPopup(same ? same.map(function (x) { return x.pin.id; }) : [id], m.x, m.y);
  }

  function hashParams() { return new URLSearchParams(location.hash.replace(/^#/, '')); }

  function applyHash() {
    var params = hashParams();
    var id = params.get('pin');
    if (!id) { selectTab(params.get('tab') === 'table' ? 'table' : 'map'); return; }
    var known = pins.concat(tableRows).filter(function (q) { return q.id === id; })[0];
    if (known) { showPin(known, 4); return; }
    getJSON('api/map/pin.json?id=' + encodeURIComponent(id)).then(function (body) { showPin(body.pin, 4); })
      .catch(function (error) { if (error.status === 404) setStatus(error.message, true); else failed(error); });
  }

  // ---- data ----
  function setStatus(text, error) { status.textContent = text; status.classList.toggle('error', !!error); }

  // "14:05" now, on the 24-hour clock of the page's language.
  function clockTime(date) {
    try {
      return new Intl.DateTimeFormat(words.locale, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(date);
    } catch (e) { return date.toTimeString().slice(0, 5); }
  }

  // A JSON answer of the map's API; a refusal's sentence becomes the error (401: signed out).
  function getJSON(url) { return getAnswer(url).then(function (answer) { return answer.body; }); }

  // The answer's body and, when the service worker gave it from its cache because the network
  // failed, when it was fetched (`cachedAt`, a Date; null for the network's own answer).
  function getAnswer(url) {
    // The server words its refusals in the language asked for: the page's.
    return fetch(url, { cache: 'no-store', headers: { 'Accept-Language': words.language } }).then(function (response) {
      var at = response.headers.get('x-onthemap-from-cache') ? Number(response.headers.get('x-onthemap-fetched-at')) : 0;
      return response.json().then(function (body) {
        if (response.status === 401) { var out = new Error(body.error || t('web.page.signedOut')); out.signedOut = true; throw out; }
        if (!response.ok) {
          var error = new Error(body.error || t('web.page.error.http', { status: String(response.status) }));
          error.status = response.status;
          throw error;
        }
        return { body: body, cachedAt: at > 0 ? new Date(at) : null };
      });
    }, function () { throw new Error(t('web.page.error.network')); });
  }

  // The zoom the server clusters for: the world is 256·2^zoom pixels wide.
  function currentZoom() {
    var world = proj.W * view.k;
    return Math.max(0, Math.min(MAX_VIEW_ZOOM, Math.floor(Math.log(world / 256) / Math.LN2)));
  }

  // What the screen shows, in degrees, and its zoom; `pad`: half a screen more on each side.
  function viewport(pad) {
    var s = size(), extraX = pad ? s.w / 2 : 0, extraY = pad ? s.h / 2 : 0;
    var a = proj.unproject((-extraX - view.tx) / view.k, (-extraY - view.ty) / view.k);
    var b = proj.unproject((s.w + extraX - view.tx) / view.k, (s.h + extraY - view.ty) / view.k);
    function clamp(v, limit) { return Math.max(-limit, Math.min(limit, v)); }
    var box = { west: clamp(a.lon, 180), east: clamp(b.lon, 180), north: clamp(a.lat, 90), south: clamp(b.lat, 90), zoom: currentZoom() };
    if (!(box.west < box.east)) { box.west = -180; box.east = 180; }
    if (!(box.south < box.north)) { box.south = -90; box.north = 90; }
    return box;
  }

  function covers(outer, inner) {
    return outer && outer.zoom === inner.zoom && outer.west <= inner.west && outer.east >= inner.east
      && outer.south <= inner.south && outer.north >= inner.north;
  }

  // After a pan or zoom settles, the viewport is asked for again when it left what was fetched.
  function scheduleView() {
    if (!fetched || covers(fetched, viewport(false))) return;
    clearTimeout(viewTimer);
    viewTimer = setTimeout(function () { load(false); }, 150);
  }

  function fixed(v) { return String(Math.round(v * 10000) / 10000); }

  // The viewport's clusters and pins; a poll of the same viewport sends the cursor and gets a
  // few bytes when nothing changed.
  function fetchView(poll) {
    var box = viewport(true);
    // A screen too large for the server's cells at this zoom is asked for without its margin.
    var s = size();
    if ((2 * s.w / 64 + 2) * (2 * s.h / 64 + 2) > 3500) box = viewport(false);
    if (poll && fetched && covers(fetched, viewport(false))) box = fetched;
    var url = 'api/map/view.json?bbox=' + [box.west, box.south, box.east, box.north].map(fixed).join(',') + '&zoom=' + box.zoom;
    var since = poll && box === fetched && cursor ? cursor : null;
    return getAnswer(url + (since ? '&since=' + encodeURIComponent(since) : '')).then(function (answer) {
      return { body: answer.body, box: box, cachedAt: answer.cachedAt };
    }, function (error) {
      if (error.status === 400 && since) { cursor = null; return fetchView(false); }
      throw error;
    });
  }

  // Applies an answer; true when what the map shows changed.
  function take(answer) {
    var body = answer.body;
    cursor = body.cursor || null;
    if (body.unchanged) return false;
    fetched = answer.box;
    pins = body.pins;
    groups = body.clusters;
    areas = body.areas;
    total = body.total;
    return true;
  }

  function failed(error) {
    if (error.signedOut) { signedOut(error.message); return; }
    setStatus(t('web.page.status.failed', { reason: error.message }), true);
  }

  // Answers may come back out of order (a poll, then a pan): one older than an answer already
  // applied is dropped.
  var asked = 0, applied = 0;

  function load(poll) {
    var number = ++asked;
    return fetchView(poll !== false).then(function (answer) {
      if (number < applied) return;
      applied = number;
      signinNote.hidden = true;
      app.removeAttribute('data-signed-out');
      signoutButton.hidden = !ownSignout;
      signoutEverywhereButton.hidden = !ownSignout;
      var changed = take(answer);
      if (answer.cachedAt) {
        setStatus(cachedStatus(total, answer.cachedAt));
        app.setAttribute('data-cached-at', String(answer.cachedAt.getTime()));
      } else {
        setStatus(t('web.page.status.pins', { count: total, time: clockTime(new Date()) }));
        app.removeAttribute('data-cached-at');
      }
      app.setAttribute('data-cursor', cursor || '');
      // The table's page is read again while it shows, and once the class changed if it was read.
      if (!document.getElementById('view-table').hidden || (changed && poll !== false && tableLoaded)) loadTable(tablePage).catch(failed);
      if (!changed) return;
      app.setAttribute('data-version', cursor || '');
      app.setAttribute('data-pins', String(total));
      app.setAttribute('data-zoom', String(answer.box.zoom));
      if (open && !listing) {
        var still = open.ids.filter(function (id) { return pins.some(function (p) { return p.id === id; }); });
        if (still.length) showPopup(still, open.x, open.y); else hidePopup();
      }
      draw();
      openPending();
      if (!opened) { opened = true; applyHash(); }
    }).catch(failed);
  }

  // The signed-in student's own data (`me/pins.geojson`, `me/trips.ics`): the links show while the
  // browser's session is good, which `me/status.json` tells (always 200, `signedIn` true or false).
  var ownData = document.getElementById('own-data');
  var ownDataAsked = 0;
  function checkOwnData() {
    var number = ++ownDataAsked;
    return fetch('me/status.json', { credentials: 'same-origin', cache: 'no-store' })
      .then(function (answer) { return answer.ok ? answer.json() : {}; })
      .then(function (body) { if (number === ownDataAsked) ownData.hidden = body.signedIn !== true; })
      .catch(function () { if (number === ownDataAsked) ownData.hidden = true; });
  }

  // A class map (`web.visibility: class`) shows its pins only to a signed-in student: signed out
  // (or after logging out), every pin, popup and table row leaves the page, and the note says how
  // to sign in.
  function signedOut(message) {
    forgetPins();
    pins = [];
    groups = [];
    areas = [];
    tableRows = [];
    tablePages = 0;
    tableLoaded = false;
    total = 0;
    cursor = null;
    fetched = null;
    hidePopup();
    draw();
    drawTable();
    app.setAttribute('data-pins', '0');
    app.setAttribute('data-signed-out', 'true');
    signinNote.textContent = message;
    signinNote.hidden = false;
    signoutButton.hidden = true;
    signoutEverywhereButton.hidden = true;
    ownDataAsked++;
    ownData.hidden = true;
    setStatus(t('web.page.signedOut'));
  }

  function loadBasemap() {
    return fetch('map/basemap.json').then(function (r) { return r.json(); }).then(function (basemap) {
      land.setAttribute('d', basemap.path);
    }).catch(function () { setStatus(t('web.page.basemap.failed'), true); });
  }

  // ---- input: mouse, wheel, touch (pointer events) ----
  var pointers = {}, drag = null, moved = false;

  mapBox.addEventListener('wheel', function (e) {
    if (popup.contains(e.target) || e.target.closest('#scene')) return;
    e.preventDefault();
    var r = mapBox.getBoundingClientRect();
    zoomAt(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.002)), e.clientX - r.left, e.clientY - r.top);
  }, { passive: false });

  svg.addEventListener('pointerdown', function (e) {
    focusPopup = false;
    svg.setPointerCapture(e.pointerId);
    pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
    moved = false;
    drag = null;
    mapBox.classList.add('dragging');
  });

  svg.addEventListener('pointermove', function (e) {
    var last = pointers[e.pointerId];
    if (!last) return;
    var ids = Object.keys(pointers);
    var r = mapBox.getBoundingClientRect();
    if (ids.length === 1) {
      var dx = e.clientX - last.x, dy = e.clientY - last.y;
      moved = moved || Math.abs(dx) + Math.abs(dy) > 2;
      view.tx += dx;
      view.ty += dy;
      clampView();
      draw();
    } else if (ids.length === 2) {
      var other = pointers[ids[0] === String(e.pointerId) ? ids[1] : ids[0]];
      var before = Math.hypot(last.x - other.x, last.y - other.y);
      var after = Math.hypot(e.clientX - other.x, e.clientY - other.y);
      moved = true;
      if (before > 0) zoomAt(after / before, (e.clientX + other.x) / 2 - r.left, (e.clientY + other.y) / 2 - r.top);
    }
    pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
  });

  function release(e) {
    delete pointers[e.pointerId];
    if (!Object.keys(pointers).length) mapBox.classList.remove('dragging');
  }
  svg.addEventListener('pointerup', release);
  svg.addEventListener('pointercancel', release);
  svg.addEventListener('click', function () { if (!moved) hidePopup(); });
  svg.addEventListener('dblclick', function (e) {
    var r = mapBox.getBoundingClientRect();
    zoomAt(2, e.clientX - r.left, e.clientY - r.top);
  });

  function zoomCenter(f) { var s = size(); zoomAt(f, s.w / 2, s.h / 2); }
  document.getElementById('zoom-in').addEventListener('click', function () { zoomCenter(2); });
  document.getElementById('zoom-out').addEventListener('click', function () { zoomCenter(0.5); });
  document.getElementById('zoom-reset').addEventListener('click', resetView);
  document.getElementById('popup-close').addEventListener('click', hidePopup);
  // One press moves the map by a third of its width or height (no dragging needed).
  function panBy(dx, dy) { view.tx += dx; view.ty += dy; clampView(); draw(); }
  [['pan-north', 0, 1], ['pan-south', 0, -1], ['pan-west', 1, 0], ['pan-east', -1, 0]].forEach(function (b) {
    document.getElementById(b[0]).addEventListener('click', function () {
      var s = size();
      panBy(b[1] * s.w / 3, b[2] * s.h / 3);
    });
  });
  listToggle.addEventListener('click', function () { setListOpen(listPanel.hidden); });
  document.getElementById('tab-map').addEventListener('click', function () { selectTab('map'); });
  document.getElementById('tab-table').addEventListener('click', function () { selectTab('table'); });
  document.getElementById('refresh').addEventListener('click', function () { load(); });
  document.getElementById('popup-previous').addEventListener('click', function () {
    if (listing && listing.page > 0) openList(listing.query, listing.page - 1, open.x, open.y);
  });
  document.getElementById('popup-next').addEventListener('click', function () {
    if (listing && listing.page + 1 < listing.pages) openList(listing.query, listing.page + 1, open.x, open.y);
  });
  document.getElementById('table-previous').addEventListener('click', function () { if (tablePage > 0) loadTable(tablePage - 1).catch(failed); });
  document.getElementById('table-next').addEventListener('click', function () { if (tablePage + 1 < tablePages) loadTable(tablePage + 1).catch(failed); });
  // "Sign out" ends this browser's session; "Sign out everywhere" ends the student's login to the
  // class bot on IRC and their other browsers too.
  function signOut(everywhere) {
    var match = document.cookie.split(';').map(function (c) { return c.trim(); })
      .filter(function (c) { return c.indexOf('XSRF-TOKEN=') === 0; })[0];
    var token = match ? decodeURIComponent(match.slice('XSRF-TOKEN='.length)) : '';
    var path = everywhere ? 'signout?everywhere=1' : 'signout';
    fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'X-XSRF-TOKEN': token, 'Accept-Language': words.language } })
      .then(function (response) {
        return response.json().then(function (body) {
          if (!response.ok) throw new Error(body.error || t('web.page.error.http', { status: String(response.status) }));
          sessionStorage.removeItem('onthemap.student');
          checkOwnData();
          return forgetPins().then(function () { return load(); });
        });
      }).catch(function (error) { setStatus(error.message, true); });
  }
  signoutButton.addEventListener('click', function () { signOut(false); });
  signoutEverywhereButton.addEventListener('click', function () { signOut(true); });
  // The language menu: the server keeps the choice for this browser (the `lang` cookie; it
  // refuses a language it does not offer, and one that a signed-in student's own `!lang` choice
  // overrides, saying why), and the page is read again in it. Without scripts the menu's form
  // posts with its button.
  var languageMenu = document.getElementById('language');
  document.getElementById('language-apply').hidden = true;
  languageMenu.addEventListener('change', function () {
    fetch('language', {
      method: 'POST', credentials: 'same-origin', cache: 'no-store',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Accept-Language': words.language },
      body: 'lang=' + encodeURIComponent(languageMenu.value)
    }).then(function (response) {
      if (response.ok) { location.reload(); return; }
      languageMenu.value = words.language;
      return response.text().then(function (text) { setStatus(text, true); });
    }).catch(function () {
      languageMenu.value = words.language;
      setStatus(t('web.page.language.failed'), true);
    });
  });
  document.addEventListener('keydown', function (e) { if (e.key === 'Escape') hidePopup(); });
  window.addEventListener('hashchange', applyHash);
  window.addEventListener('resize', function () { clampView(); draw(); });

  // ---- what the view shows, in words: the list and the live summary ----
  var LIST_KEY = 'onthemap.list';
  var describeTimer = null, lastSummary = '';

  function setListOpen(shown) {
    listPanel.hidden = !shown;
    listToggle.setAttribute('aria-expanded', String(shown));
    try { localStorage.setItem(LIST_KEY, shown ? 'open' : 'closed'); } catch (e) { /* private mode */ }
    if (shown) describe();
  }

  // Redrawn once the view settles (a drag redraws many times a second).
  function scheduleDescribe() {
    clearTimeout(describeTimer);
    describeTimer = setTimeout(describe, 300);
  }

  function degrees(v) { return words.number(Math.round(v * 100) / 100); }

  // The places, clusters and pins on screen, largest first, then the pins by name; each with what
  // its "Show on map" does.
  function shownItems() {
    var s = size(), items = [];
    function at(lat, lon) {
      var m = project(lat, lon), sx = m.x * view.k + view.tx, sy = m.y * view.k + view.ty;
      return sx >= 0 && sy >= 0 && sx <= s.w && sy <= s.h ? m : null;
    }
    areas.forEach(function (a) {
      var m = at(a.latitude, a.longitude);
      if (!m) return;
      items.push({ key: 'place:' + a.place, count: a.count, text: t('web.page.area.count', { count: a.count, place: a.place }),
        show: function () {
          centerOn(m.x, m.y, view.k / minScale());
          openList('place=' + encodeURIComponent(a.place), 0, m.x, m.y);
        } });
    });
    groups.forEach(function (c) {
      var m = at(c.latitude, c.longitude);
      if (!m) return;
      items.push({ key: 'cell:' + c.cell, count: c.count,
        text: t('web.page.list.cluster', { count: c.count, lat: degrees(c.latitude), lon: degrees(c.longitude) }),
        show: function () {
          // Zoomed in on while the server can still split it; then its names are listed.
          if (currentZoom() < SINGLES_ZOOM && view.k * 4 <= maxScale()) {
            focusPopup = false;
            centerOn(m.x, m.y, view.k * 4 / minScale());
            return;
          }
          centerOn(m.x, m.y, view.k / minScale());
          openList('cell=' + encodeURIComponent(c.cell), 0, m.x, m.y);
        } });
    });
    items.sort(function (a, b) { return b.count - a.count; });
    var singles = [];
    pins.forEach(function (p) {
      if (!at(p.latitude, p.longitude)) return;
      singles.push({ key: 'pin:' + p.id, name: p.name, count: 1, text: p.name + ' — ' + placeText(p),
        show: function () { showPin(p, view.k / minScale()); } });
    });
    var collator = window.Intl && Intl.Collator ? new Intl.Collator(words.locale) : null;
    singles.sort(function (a, b) { return collator ? collator.compare(a.name, b.name) : (a.name < b.name ? -1 : 1); });
    return items.concat(singles);
  }

  function describe() {
    clearTimeout(describeTimer);
    var items = shownItems(), s = size();
    var inView = items.reduce(function (sum, item) { return sum + item.count; }, 0);
    var centre = proj.unproject((s.w / 2 - view.tx) / view.k, (s.h / 2 - view.ty) / view.k);
    var text = t('web.page.summary', { count: inView, lat: degrees(centre.lat), lon: degrees(centre.lon),
      zoom: currentZoom(), max: MAX_VIEW_ZOOM });
    if (text !== lastSummary) { lastSummary = text; summary.textContent = text; }
    app.setAttribute('data-in-view', String(inView));
    if (listPanel.hidden) return;
    // The focus stays on the same item when the list is drawn again, else on the list's heading.
    var focused = listItems.contains(document.activeElement) ? document.activeElement.getAttribute('data-key') : null;
    while (listItems.firstChild) listItems.removeChild(listItems.firstChild);
    var refocus = null;
    items.forEach(function (item, index) {
      var li = document.createElement('li');
      var what = document.createElement('span');
      what.className = 'what';
      what.id = 'map-list-' + index;
      what.textContent = item.text;
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'show';
      button.setAttribute('data-key', item.key);
      button.setAttribute('aria-describedby', what.id);
      button.textContent = t('web.page.list.show');
      button.addEventListener('click', function () {
        focusPopup = true;
        popupOpener = button;
        item.show();
      });
      li.appendChild(what);
      li.appendChild(button);
      listItems.appendChild(li);
      if (focused && item.key === focused) refocus = button;
    });
    document.getElementById('map-list-empty').hidden = items.length > 0;
    if (refocus) refocus.focus();
    else if (focused) document.getElementById('map-list-heading').focus();
  }

  // ---- offline: the service worker and its caches ----
  var DATA_CACHE = 'onthemap-data';

  // The pins kept for offline use leave this browser (a sign-in or sign-out: another account may
  // use it next).
  function forgetPins() {
    if (navigator.serviceWorker && navigator.serviceWorker.controller) navigator.serviceWorker.controller.postMessage('forget-pins');
    return window.caches ? caches.delete(DATA_CACHE).catch(function () { return false; }) : Promise.resolve(false);
  }

  function registerWorker() {
    if (!('serviceWorker' in navigator)) return;
    // A worker that just took control has kept nothing of what the page read before: the view is
    // read again whole (a poll's "unchanged" is no answer to keep).
    navigator.serviceWorker.addEventListener('controllerchange', function () { load(false); });
    navigator.serviceWorker.register('sw.js').then(function () {
      return navigator.serviceWorker.ready;
    }).then(function () { app.setAttribute('data-offline', 'ready'); }).catch(function () {
      // Offline, the check for a newer worker fails while the installed one still serves the page.
      if (!navigator.serviceWorker.controller) app.setAttribute('data-offline', 'unavailable');
    });
  }

  // "Offline: 166 pins as of 14:02" (or "as of 24 Nov, 14:02" for another day), in the page's
  // language and clock.
  function cachedStatus(count, date) {
    if (date.toDateString() === new Date().toDateString()) {
      return t('web.page.status.cached', { count: count, time: clockTime(date) });
    }
    var day;
    try { day = new Intl.DateTimeFormat(words.locale, { day: 'numeric', month: 'short' }).format(date); } catch (e) { day = date.toDateString(); }
    return t('web.page.status.cachedDay', { count: count, day: day, time: clockTime(date) });
  }

  // ---- start ----
  if (tiles) {
    app.setAttribute('data-basemap', 'tiles');
    tileCredit.textContent = app.getAttribute('data-tiles-attribution') || '';
    tileCredit.hidden = false;
  } else {
    app.setAttribute('data-basemap', 'offline');
  }
  var lat = parseFloat(app.getAttribute('data-focus-lat'));
  var lon = parseFloat(app.getAttribute('data-focus-lon'));
  resetView();
  if (isFinite(lat) && isFinite(lon)) {
    focus = { lat: lat, lon: lon, label: app.getAttribute('data-focus-label') || '' };
    var m = project(lat, lon);
    centerOn(m.x, m.y, 8);
    app.setAttribute('data-focused', 'true');
  }
  // What the page's other scripts (posting.js) may ask of the map.
  window.OnTheMap = {
    // After a log-in or log-out: the pins again, and whether the student's own data is theirs to take.
    reload: function () { checkOwnData(); return load(); },
    dayText: dayText,
    setStatus: setStatus,
    forgetPins: forgetPins,
    // Where the map is: its scale and offset, the centre in degrees and the server's zoom.
    view: function () {
      var s = size(), c = proj.unproject((s.w / 2 - view.tx) / view.k, (s.h / 2 - view.ty) / view.k);
      return { k: view.k, tx: view.tx, ty: view.ty, lat: c.lat, lon: c.lon, zoom: currentZoom() };
    },
    showPlace: function (lat, lon, label) {
      focus = { lat: lat, lon: lon, label: label };
      var m = project(lat, lon);
      centerOn(m.x, m.y, 8);
    }
  };
  try { setListOpen(localStorage.getItem(LIST_KEY) === 'open'); } catch (e) { setListOpen(false); }
  registerWorker();
  loadBasemap();
  load();
  checkOwnData();
  var every = Math.max(2, parseInt(app.getAttribute('data-poll-seconds'), 10) || 15) * 1000;
  setInterval(function () { if (!document.hidden) load(); }, every);
  setInterval(function () { if (!document.hidden) refreshLocalTimes(); }, 20000);
})();
