// A waiting page (a photo being read, a face being judged, the registry being asked): instead of the
// timed reload it has without JavaScript, ask the server for the flow's version a few times a second
// and reload as soon as it changed, so the verdict shows when it is there, not at the next tick.
(function () {
  'use strict';
  var main = document.querySelector('[data-wait-url]');
  if (!main || !window.fetch) return fallback();
  var url = main.getAttribute('data-wait-url');
  var version = Number(main.getAttribute('data-wait-version'));
  var every = Math.max(250, Number(main.getAttribute('data-wait-every-ms')) || 500);
  // The page may be the answer to a POST: reload its address with a GET, never resubmit.
  var here = window.location.pathname;

  function fallback() {
    // The no-script page's behaviour: reload after the page's own refresh period.
    var meta = document.querySelector('noscript');
    var seconds = meta && /content="(\d+)"/.exec(meta.textContent || '');
    setTimeout(
      function () {
        window.location.replace(window.location.pathname);
      },
      (seconds ? Number(seconds[1]) : 2) * 1000,
    );
  }

  function ask() {
    fetch(url, { credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' } })
      .then(function (response) {
        if (!response.ok) throw new Error('status ' + response.status);
        return response.json();
      })
      .then(function (answer) {
        if (answer.version !== version) window.location.replace(here);
        else setTimeout(ask, every);
      })
      .catch(fallback);
  }

  setTimeout(ask, every);
})();
