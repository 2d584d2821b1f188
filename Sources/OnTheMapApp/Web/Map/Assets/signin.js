// The page of a sign-in link (`/signin#<token>`): the token is read from the fragment (which no
// server sees), taken out of the address bar, and posted only when the student presses the button,
// so a chat client's link preview, which fetches the page but runs no script and presses nothing,
// cannot use the link up.
// Its words are the page's catalogue messages (text.js), in the page's language.
(function () {
  'use strict';
  var words = window.OnTheMapText;
  var t = words.t;
  var STORE = 'onthemap.student';
  var button = document.getElementById('signin-button');
  var error = document.getElementById('signin-error');
  var token = '';
  try { token = decodeURIComponent(location.hash.replace(/^#/, '')); } catch (e) { token = ''; }
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);

  function say(text) {
    error.textContent = text;
    error.hidden = !text;
  }

  if (!token) {
    say(t('web.signin.noToken'));
    return;
  }
  button.disabled = false;
  button.addEventListener('click', function () {
    button.disabled = true;
    say('');
    fetch('signin', {
      method: 'POST', credentials: 'same-origin', cache: 'no-store',
      headers: { 'Content-Type': 'application/json', 'Accept-Language': words.language },
      body: JSON.stringify({ token: token })
    }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error(body.error || t('web.signin.failed'));
        // What the map's posting scene knows of a student after its own login.
        sessionStorage.setItem(STORE, JSON.stringify({ key: body.key, firstName: body.firstName, lastName: body.lastName }));
        // Pins an earlier account of this browser kept for offline use (the map's service worker,
        // sw.js) are not this student's to read.
        if (navigator.serviceWorker && navigator.serviceWorker.controller) navigator.serviceWorker.controller.postMessage('forget-pins');
        var forget = window.caches ? caches.delete('onthemap-data').catch(function () { return false; }) : Promise.resolve();
        return forget.then(function () { location.replace('map'); });
      });
    }).catch(function (failure) {
      token = '';
      say(failure.message || t('web.signin.failed'));
    });
  });
})();
