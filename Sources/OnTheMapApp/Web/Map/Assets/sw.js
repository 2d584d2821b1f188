// The class map's service worker (served at the listener's root, so its scope is the page at `/`
// and `/map` and the data under `api/`). What it keeps:
//
// - The page's shell (the page, its scripts, style, basemap, icons, manifest; the city-zoom
//   outlines and labels once seen) in a cache named after this version: a bot whose page changed
//   serves another version, which replaces this worker and drops its cache.
// - The pins' answers (api/map/*.json, api/locations.json) in a cache of their own. Both are read
//   network-first: the network's answer is shown and kept; only when the network fails (no
//   connection, or a proxy saying the bot is down: 502, 503, 504) is the kept answer shown,
//   marked with when it was fetched, which the page turns into "as of 14:02".
//
// On a class map the pins are for signed-in students only, and a browser may be shared: a 401 or
// 403 from the data empties the data cache, and so do the page's sign-in and sign-out (they post
// "forget-pins" here and delete the cache themselves). A delta (`since` on api/locations.json) is
// never kept: only whole answers are. Nothing but GET requests of this origin under the scope is
// touched; the v1 API, sign-in and language requests go to the network as they are.
'use strict';
var VERSION = '{{VERSION}}';
var SHELL = 'onthemap-shell-' + VERSION;
var DATA = 'onthemap-data';
var FETCHED_AT = 'x-onthemap-fetched-at';
var FROM_CACHE = 'x-onthemap-from-cache';
var SHELL_FILES = ['map', 'manifest.webmanifest', 'map/app.css', 'map/text.js', 'map/layers.js', 'map/tiles.js',
  'map/app.js', 'map/posting.js', 'map/basemap.json', 'map/icon.svg', 'map/icon-192.png'];
var DATA_PATHS = ['api/map/view.json', 'api/map/names.json', 'api/map/table.json', 'api/map/pin.json',
  'api/locations.json'];
// How long the shell waits for the network before showing what it kept (a connection that hangs).
var SHELL_PATIENCE_MS = 6000;
// The most answers kept (each pan asks for another viewport): the oldest go first.
var MAX_KEPT = 60;
var scope = new URL(self.registration.scope);
// Bumped by every "forget": an answer fetched before it is never written after it.
var generation = 0;

function within(path) { return DATA_PATHS.indexOf(path) >= 0; }
function isShell(path) {
  return SHELL_FILES.indexOf(path) >= 0 || /^map\/detail\/\d+-\d+\.json$/.test(path) || path === 'map/places.json';
}

self.addEventListener('install', function (event) {
  event.waitUntil(caches.open(SHELL).then(function (cache) {
    return cache.addAll(SHELL_FILES.map(function (file) {
      return new Request(new URL(file, scope).href, { cache: 'reload', credentials: 'same-origin' });
    }));
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener('activate', function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name.indexOf('onthemap-shell-') === 0 && name !== SHELL;
    }).map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.clients.claim(); }));
});

function forgetPins() {
  generation += 1;
  return caches.delete(DATA);
}

self.addEventListener('message', function (event) {
  if (event.data === 'forget-pins') event.waitUntil(forgetPins());
});

// A copy of `response` whose headers say when it was fetched (ms since 1970); the body as the
// network gave it, decoded.
function stamped(response, at) {
  return response.blob().then(function (body) {
    var headers = new Headers(response.headers);
    headers.delete('content-encoding');
    headers.delete('content-length');
    headers.set(FETCHED_AT, String(at));
    return new Response(body, { status: response.status, statusText: response.statusText, headers: headers });
  });
}

// A kept answer as the page receives it: marked as coming from the cache.
function fromCache(response) {
  return response.blob().then(function (body) {
    var headers = new Headers(response.headers);
    headers.set(FROM_CACHE, '1');
    return new Response(body, { status: response.status, statusText: response.statusText, headers: headers });
  });
}

// ---- the shell: network first, the kept copy when the network fails or hangs ----
// `store`: keep the network's answer (a page with a query, `?focus=`, is not kept as the page).
function shell(event, key, store) {
  var request = event.request;
  var network = fetch(request).then(function (response) {
    if (store && response.ok && response.type === 'basic') {
      var copy = response.clone();
      event.waitUntil(caches.open(SHELL).then(function (cache) { return cache.put(key, copy); }));
    }
    return response;
  });
  var kept = caches.open(SHELL).then(function (cache) {
    return cache.match(key, { ignoreVary: true }).then(function (hit) {
      // A page asked for with `?focus=` is shown offline from the page without it.
      return hit || (request.mode === 'navigate' ? cache.match(new URL('map', scope).href, { ignoreVary: true }) : null);
    });
  });
  return new Promise(function (resolve, reject) {
    var settled = false;
    function settle(response) { if (!settled && response) { settled = true; resolve(response); } }
    var timer = setTimeout(function () { kept.then(settle); }, SHELL_PATIENCE_MS);
    network.then(function (response) { clearTimeout(timer); settle(response); }, function (error) {
      clearTimeout(timer);
      kept.then(function (hit) { if (hit) settle(hit); else if (!settled) { settled = true; reject(error); } });
    });
  });
}

// ---- the pins: network first; the kept answer, marked, when the network fails ----
function dataKey(url) {
  var key = new URL(url.href);
  key.searchParams.delete('since');
  key.searchParams.sort();
  return key.href;
}

// The kept answer for `key`; for a viewport never seen, the newest viewport kept (its pins are
// still where they are, and the page says how old they are).
function keptAnswer(key, path) {
  return caches.open(DATA).then(function (cache) {
    return cache.match(key, { ignoreVary: true }).then(function (hit) {
      if (hit || path !== 'api/map/view.json') return hit;
      return cache.keys().then(function (requests) {
        var views = requests.filter(function (r) { return new URL(r.url).pathname.slice(-14) === '/map/view.json'; });
        return Promise.all(views.map(function (r) { return cache.match(r, { ignoreVary: true }); }));
      }).then(function (answers) {
        var newest = null;
        answers.forEach(function (answer) {
          if (answer && (!newest || Number(answer.headers.get(FETCHED_AT)) > Number(newest.headers.get(FETCHED_AT)))) newest = answer;
        });
        return newest;
      });
    });
  }).then(function (hit) { return hit ? fromCache(hit) : null; });
}

// Puts `copy` under `key` unless the pins were forgotten since its request started; then drops the
// oldest answers past MAX_KEPT (a cache lists its entries in the order they were put).
function put(key, copy, started) {
  if (generation !== started) return Promise.resolve();
  return caches.open(DATA).then(function (cache) {
    return cache.put(key, copy).then(function () { return cache.keys(); }).then(function (keys) {
      return Promise.all(keys.slice(0, Math.max(0, keys.length - MAX_KEPT)).map(function (old) { return cache.delete(old); }));
    });
  });
}

// Keeps a whole answer; an `unchanged` answer to a viewport's poll confirms the kept one, which
// then counts as fetched now.
function keep(response, key, path, since, started) {
  var at = Date.now();
  if (!since) {
    return stamped(response, at).then(function (copy) { return put(key, copy, started); });
  }
  if (path !== 'api/map/view.json') return Promise.resolve();
  return response.clone().json().then(function (body) {
    if (!body.unchanged) {
      return stamped(response, at).then(function (copy) { return put(key, copy, started); });
    }
    return caches.open(DATA).then(function (cache) {
      return cache.match(key, { ignoreVary: true }).then(function (hit) {
        if (!hit) return;
        return hit.clone().json().then(function (kept) {
          if (kept.cursor !== since || generation !== started) return;
          return stamped(hit, at).then(function (copy) { return cache.put(key, copy); });
        });
      });
    });
  }).catch(function () {});
}

function data(event, url, path) {
  var key = dataKey(url);
  var since = url.searchParams.get('since');
  var started = generation;
  return fetch(event.request).then(function (response) {
    if (response.status === 401 || response.status === 403) {
      return forgetPins().then(function () { return response; });
    }
    if (response.status >= 502 && response.status <= 504) {
      return keptAnswer(key, path).then(function (hit) { return hit || response; });
    }
    if (response.status === 200) event.waitUntil(keep(response.clone(), key, path, since, started));
    return response;
  }, function (error) {
    return keptAnswer(key, path).then(function (hit) {
      if (hit) return hit;
      throw error;
    });
  });
}

self.addEventListener('fetch', function (event) {
  var request = event.request;
  if (request.method !== 'GET') return;
  var url = new URL(request.url);
  if (url.origin !== scope.origin || url.pathname.indexOf(scope.pathname) !== 0) return;
  var path = url.pathname.slice(scope.pathname.length);
  if (request.mode === 'navigate') {
    if (path === '' || path === 'map') event.respondWith(shell(event, new URL('map', scope).href, !url.search));
    return;
  }
  if (within(path)) { event.respondWith(data(event, url, path)); return; }
  if (isShell(path)) event.respondWith(shell(event, url.href, true));
});
