// The page's words in its language: the messages the server wrote into the page's
// `<script type="application/json" id="page-text">` block (from the message catalogues: the map's
// `web.page.*`, the sign-in page's `web.signin.*`), filled by key:
// t(key, { count: 3, time: '12:04' }). Numbers are written, and the form of a
// counted message chosen, the language's way (the browser's Intl). Only ever put in the page as
// text (textContent, attribute values).
(function () {
  'use strict';
  var block = document.getElementById('page-text');
  var data = {};
  try { data = JSON.parse(block ? block.textContent : '{}') || {}; } catch (e) { data = {}; }
  var messages = data.messages || {};
  var language = data.language || document.documentElement.lang || 'en';
  var locale = data.locale || language;
  var plurals = null, numbers = null;
  try { plurals = new Intl.PluralRules(locale); } catch (e) { plurals = null; }
  try { numbers = new Intl.NumberFormat(locale); } catch (e) { numbers = null; }

  function written(value) {
    return typeof value === 'number' && numbers ? numbers.format(value) : String(value);
  }

  // The message filed under `key` with its {placeholders} filled from `values`; a counted message
  // takes the form of the number it names. The key itself when the page has no such message
  // (the catalogue tests make sure every key a script names is there).
  function t(key, values) {
    values = values || {};
    var message = messages[key];
    var text;
    if (typeof message === 'string') {
      text = message;
    } else if (message && typeof message === 'object') {
      var n = Number(values[message.plural]);
      var category = plurals && isFinite(n) ? plurals.select(n) : 'other';
      text = message[category] || message.other || '';
    } else {
      return key;
    }
    return text.replace(/\{([A-Za-z][A-Za-z0-9_]*)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? written(values[name]) : whole;
    });
  }

  window.OnTheMapText = { t: t, number: written, language: language, locale: locale };
})();
