// The room updates itself. Every few seconds the page asks how many times the tournament has
// changed (#live-feed: the count it was drawn at); when the count moved, every live part of
// the page (data-hx-trigger="room-changed from:body") fetches itself again through htmx.
// Short polls, not a stream: see tournaments/views/live.py for why.
(function () {
  var feed = document.getElementById("live-feed");
  if (!feed) return;
  var url = feed.dataset.liveUrl;
  var count = feed.dataset.liveCount;
  var VISIBLE_MS = 2000; // a save shows within about two seconds on a screen being looked at
  var HIDDEN_MS = 30000; // a phone in a pocket asks seldom, and at once when it is looked at
  var timer = null;
  var asking = false;

  function later(ms) {
    clearTimeout(timer);
    timer = setTimeout(ask, ms);
  }

  function changed(now) {
    count = String(now);
    feed.dataset.liveCount = count;
    document.body.dispatchEvent(new CustomEvent("room-changed", { detail: { count: count } }));
  }

  function ask() {
    if (asking) return;
    asking = true;
    // The count last seen goes with every ask: a phone back from a drop-out catches up at once.
    fetch(url + "?since=" + encodeURIComponent(count), {
      cache: "no-store",
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    })
      .then(function (response) {
        if (response.status !== 200) return null;
        return response.json().then(function (data) {
          if (String(data.count) !== count) changed(data.count);
        });
      })
      .catch(function () {
        // Offline or the server restarting: keep the count and ask again later.
      })
      .then(function () {
        asking = false;
        later(document.hidden ? HIDDEN_MS : VISIBLE_MS);
      });
  }

  // Nothing a person is typing is swapped away: a form in a live part that has been typed
  // into keeps its DOM until it is sent (its entry is then in the phone's queue), and the
  // next change of the room brings the rest of the part up to date.
  function touched(event) {
    var form = event.target && event.target.form;
    if (form) form.setAttribute("data-touched", "");
  }
  document.addEventListener("input", touched, true);
  document.addEventListener("change", touched, true);
  document.addEventListener(
    "submit",
    function (event) {
      event.target.removeAttribute("data-touched");
    },
    true
  );

  // A part whose answer did not change keeps its DOM (focus, scroll, fitted names).
  var last = {};
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || !target.id || !target.hasAttribute("data-live-part")) return;
    if (target.querySelector("form[data-touched]")) {
      event.detail.shouldSwap = false;
      return;
    }
    var html = event.detail.xhr.responseText;
    if (event.detail.xhr.status === 200 && last[target.id] === html) {
      event.detail.shouldSwap = false;
    }
    last[target.id] = html;
  });

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) later(0);
  });
  window.addEventListener("online", function () {
    later(0);
  });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) later(0);
  });
  later(VISIBLE_MS);
})();
