// The student's scenes of the class map, over the class's own v1 API (present only when the
// operator turned the API on): log in, put yourself on the map in steps (where → confirm the place
// on the map → your link → submit, replacing an existing pin only after you say so), log out.
// Every failure is told in words, in the page's language (text.js; the API is asked in it too);
// nothing from the server is ever parsed as HTML.
(function () {
  'use strict';
  var words = window.OnTheMapText;
  var t = words.t;
  var app = document.getElementById('app');
  if (app.getAttribute('data-api') !== 'on') return;

  // A class without passwords (plugins.login.passwords: false) signs in with the bot's links only.
  var passwords = app.getAttribute('data-passwords') !== 'off';
  var STORE = 'onthemap.student';
  var PREFIX = ")]}'";
  function $(id) { return document.getElementById(id); }
  var panel = $('scene');
  var scenes = ['login-form', 'place-form', 'link-form', 'replace-form', 'done'];
  var student = null; // { key, firstName, lastName }
  var chosen = null;  // { name, latitude, longitude }
  var existing = null; // the student's pin already on the map, if any

  // ---- talking to the API ----
  function Failure(message, status) { this.message = message; this.status = status; }

  // fetch → { status, body } with the contract's `)]}'` prefix removed; a network failure is told
  // apart from an answer.
  function call(method, path, body, headers) {
    var init = { method: method, credentials: 'same-origin', headers: headers || {} };
    init.headers['Accept-Language'] = words.language;
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (response) {
      return response.text().then(function (text) {
        if (text.indexOf(PREFIX) === 0) text = text.slice(text.indexOf('\n') + 1);
        var parsed = null;
        try { parsed = text ? JSON.parse(text) : null; } catch (e) { parsed = null; }
        return { status: response.status, body: parsed || {} };
      });
    }, function () {
      throw new Failure(t('web.page.error.network'), 0);
    });
  }

  // The words for a refused request: the server's own message when it gave one.
  function refusal(answer, fallback) {
    if (answer.status === 401) return new Failure(t('web.page.error.sessionEnded'), 401);
    if (answer.status >= 500) return new Failure(t('web.page.error.unavailable'), answer.status);
    return new Failure((answer.body && answer.body.error) || fallback, answer.status);
  }

  // ---- what the page shows ----
  function show(scene) {
    panel.hidden = !scene;
    scenes.forEach(function (id) { $(id).hidden = id !== scene; });
    var first = scene && $(scene).querySelector('input:not([type=hidden]), button');
    if (first) first.focus();
  }

  function say(id, text) {
    var node = $(id);
    node.textContent = text || '';
    node.hidden = !text;
  }

  function showStudent() {
    $('login-open').hidden = !!student || !passwords;
    $('post-open').hidden = !student;
    $('logout').hidden = !student;
    $('logout-everywhere').hidden = !student;
    $('who').hidden = !student;
    $('who').textContent = student
      ? t('web.page.who', { name: (student.firstName + ' ' + student.lastName).trim() }) : '';
  }

  function forget(message) {
    student = null;
    sessionStorage.removeItem(STORE);
    showStudent();
    if (!passwords) { show(null); return; }
    show('login-form');
    say('login-error', message);
  }

  function fail(errorId) {
    return function (failure) {
      if (failure.status === 401) { forget(failure.message); return; }
      say(errorId, failure.message || String(failure));
    };
  }

  // ---- log in, log out ----
  $('login-open').addEventListener('click', function () { say('login-error', ''); show('login-form'); });

  $('login-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var email = $('login-email').value.trim(), password = $('login-password').value;
    if (!email || !password) { say('login-error', t('web.page.login.empty')); return; }
    say('login-error', '');
    $('login-submit').disabled = true;
    call('POST', 'v1/session', { udacity: { username: email, password: password } }).then(function (answer) {
      if (answer.status === 403) throw new Failure(t('web.page.login.wrong'), 403);
      if (answer.status !== 200 || !answer.body.account) throw refusal(answer, t('web.page.login.refused'));
      var key = answer.body.account.key;
      return call('GET', 'v1/users/' + encodeURIComponent(key)).then(function (profile) {
        if (profile.status !== 200) throw refusal(profile, t('web.page.login.profileFailed'));
        return { key: key, firstName: profile.body.first_name || '', lastName: profile.body.last_name || '' };
      });
    }).then(function (who) {
      student = who;
      sessionStorage.setItem(STORE, JSON.stringify(who));
      $('login-password').value = '';
      showStudent();
      show(null);
      // A class map shows its pins to a signed-in student only: read them now, keeping none an
      // earlier account of this browser left for offline use.
      window.OnTheMap.forgetPins().then(function () { window.OnTheMap.reload(); });
    }, fail('login-error')).then(function () { $('login-submit').disabled = false; });
  });

  function xsrfToken() {
    var match = document.cookie.split(';').map(function (c) { return c.trim(); })
      .filter(function (c) { return c.indexOf('XSRF-TOKEN=') === 0; })[0];
    return match ? decodeURIComponent(match.slice('XSRF-TOKEN='.length)) : '';
  }

  // "Log out" ends this browser's session; "Log out everywhere" ends the student's login to the
  // class bot on IRC and their other browsers too.
  function logOut(everywhere) {
    var token = xsrfToken();
    var path = everywhere ? 'v1/session?everywhere=1' : 'v1/session';
    call('DELETE', path, undefined, { 'X-XSRF-TOKEN': token }).then(function (answer) {
      // Without its token cookie the browser holds no session any more: nothing left to end.
      var gone = answer.status === 403 && !token;
      if (answer.status !== 200 && !gone) throw refusal(answer, t('web.page.logout.refused'));
      student = null;
      sessionStorage.removeItem(STORE);
      showStudent();
      show(null);
      window.OnTheMap.setStatus(everywhere ? t('web.page.logout.doneEverywhere') : t('web.page.logout.done'));
      // On a class map the pins leave the page with the session, and the browser's offline copy.
      window.OnTheMap.forgetPins().then(function () { window.OnTheMap.reload(); });
    }).catch(function (failure) { window.OnTheMap.setStatus(failure.message, true); });
  }
  $('logout').addEventListener('click', function () { logOut(false); });
  $('logout-everywhere').addEventListener('click', function () { logOut(true); });

  // ---- where are you studying? ----
  $('post-open').addEventListener('click', function () {
    chosen = null;
    $('place').value = '';
    $('until').value = '';
    $('link').value = '';
    say('place-error', '');
    clearChoices();
    $('place-confirm').hidden = true;
    show('place-form');
  });

  function clearChoices() {
    var list = $('place-choices');
    while (list.firstChild) list.removeChild(list.firstChild);
    $('place-question').hidden = true;
  }

  function choose(place, button) {
    chosen = place;
    Array.prototype.forEach.call($('place-choices').querySelectorAll('button'), function (b) {
      b.setAttribute('aria-pressed', String(b === button));
    });
    window.OnTheMap.showPlace(place.latitude, place.longitude, place.name);
    $('place-confirm').hidden = false;
  }

  $('place-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var query = $('place').value.trim();
    chosen = null;
    clearChoices();
    $('place-confirm').hidden = true;
    if (!query) { say('place-error', t('web.page.place.empty')); return; }
    say('place-error', '');
    call('GET', 'v1/geocode?q=' + encodeURIComponent(query)).then(function (answer) {
      if (answer.status !== 200) throw refusal(answer, t('web.page.place.lookupFailed'));
      var places = answer.body.results || [];
      if (answer.body.status === 'not_a_place') {
        throw new Failure(t('web.page.place.notAPlace', { query: query }));
      }
      if (!places.length) {
        throw new Failure(t('web.page.place.notFound', { query: query }));
      }
      $('place-question').textContent = answer.body.status === 'offered'
        ? t('web.page.place.offered') : t('web.page.place.found');
      $('place-question').hidden = false;
      places.forEach(function (place, index) {
        var item = document.createElement('li');
        var button = document.createElement('button');
        button.type = 'button';
        button.textContent = place.name;
        button.addEventListener('click', function () { choose(place, button); });
        item.appendChild(button);
        $('place-choices').appendChild(item);
        if (index === 0 && answer.body.status === 'found') choose(place, button);
      });
    }).catch(fail('place-error'));
  });

  $('place-confirm').addEventListener('click', function () {
    if (!chosen) return;
    if ($('until').value) { postTrip($('until').value); return; }
    $('link-place').textContent = chosen.name;
    say('link-error', '');
    show('link-form');
  });

  // ---- a trip: the chosen place shows instead of the home pin until the end of that day ----
  function postTrip(until) {
    say('place-error', '');
    call('GET', 'v1/StudentLocation?limit=1&uniqueKey=' + encodeURIComponent(student.key)).then(function (answer) {
      if (answer.status !== 200) throw refusal(answer, t('web.page.pin.lookupFailed'));
      var home = (answer.body.results || [])[0];
      if (!home) {
        throw new Failure(t('web.page.trip.noHome'));
      }
      return call('PUT', 'v1/StudentLocation/' + encodeURIComponent(home.objectId), {
        uniqueKey: student.key, firstName: student.firstName, lastName: student.lastName,
        mapString: chosen.name, mediaURL: home.mediaURL,
        latitude: chosen.latitude, longitude: chosen.longitude, until: until
      });
    }).then(function (answer) {
      if (answer.status !== 200) throw refusal(answer, t('web.page.trip.refused'));
      var trip = answer.body.trip || {};
      var shown = window.OnTheMap.dayText(trip.until) || until;
      say('done-text', t('web.page.trip.done', { place: trip.mapString || chosen.name, day: shown }));
      show('done');
      window.OnTheMap.reload();
    }).catch(fail('place-error'));
  }

  // ---- your link, then submit ----
  function isWebLink(text) { return /^https?:\/\/[^\s/?#]+\.[^\s]*$/i.test(text); }

  $('link-back').addEventListener('click', function () { show('place-form'); });

  $('link-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var link = $('link').value.trim();
    if (!isWebLink(link)) { say('link-error', t('web.page.link.invalid')); return; }
    say('link-error', '');
    call('GET', 'v1/StudentLocation?limit=1&uniqueKey=' + encodeURIComponent(student.key)).then(function (answer) {
      if (answer.status !== 200) throw refusal(answer, t('web.page.pin.lookupFailed'));
      existing = (answer.body.results || [])[0] || null;
      if (existing) {
        $('replace-question').textContent = t('web.page.replace.question', { old: existing.mapString, place: chosen.name });
        show('replace-form');
      } else {
        submit(null);
      }
    }).catch(fail('link-error'));
  });

  $('replace-form').addEventListener('submit', function (e) { e.preventDefault(); submit(existing.objectId); });
  $('replace-no').addEventListener('click', function () { show('link-form'); });

  function submit(objectId) {
    var pin = {
      uniqueKey: student.key, firstName: student.firstName, lastName: student.lastName,
      mapString: chosen.name, mediaURL: $('link').value.trim(),
      latitude: chosen.latitude, longitude: chosen.longitude
    };
    var request = objectId
      ? call('PUT', 'v1/StudentLocation/' + encodeURIComponent(objectId), pin)
      : call('POST', 'v1/StudentLocation', pin);
    request.then(function (answer) {
      if (answer.status !== 200 && answer.status !== 201) throw refusal(answer, t('web.page.pin.refused'));
      say('done-text', t('web.page.pin.done', { place: chosen.name }));
      show('done');
      window.OnTheMap.reload();
    }).catch(function (failure) {
      show('link-form');
      fail('link-error')(failure);
    });
  }

  // ---- cancel, at any step ----
  Array.prototype.forEach.call(panel.querySelectorAll('.cancel'), function (button) {
    button.addEventListener('click', function () { chosen = null; existing = null; show(null); });
  });
  document.addEventListener('keydown', function (e) { if (e.key === 'Escape' && !panel.hidden) show(null); });

  // ---- start ----
  var signup = app.getAttribute('data-signup-url') || '';
  if (/^https?:\/\//i.test(signup)) {
    $('signup').href = signup;
    $('signup').hidden = false;
  } else {
    $('signup-ask').hidden = false;
  }
  $('student').hidden = false;
  try { student = JSON.parse(sessionStorage.getItem(STORE) || 'null'); } catch (e) { student = null; }
  showStudent();
})();
